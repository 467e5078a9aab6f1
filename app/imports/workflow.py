"""An import, from a document to its report: the templates its format finds (formats.py), each
then its own create or update through the blueprint store (the same rules, history and
requirements as a request's; a `kubernetes-quota` import's profile through the profile store),
found again by its `source`, so that a refused one never undoes another and a re-import updates
what the last one made."""

from dataclasses import dataclass

import marshmallow as ma

from app.blueprints.schemas import BlueprintSchema
from app.blueprints.storage import store as blueprints
from app.errors import Invalid, NotFound
from app.imports import formats
from app.imports.candidate import secrets_marked
from app.imports.schemas import OUTCOMES
from app.model import yamlguard
from app.model.fields import one_line
from app.profiles.schemas import ProfileSchema
from app.profiles.storage import store as profiles
from app.storage.resource_store import Collision

MAX_TEMPLATES = 1000


@dataclass(frozen=True)
class Target:
    """What an import makes: the store it writes through, the schema a template is loaded with
    (as a create's body is), the import `defaults` that apply to it, and the fields a re-import
    leaves as their owner set them unless the document or the defaults give them."""

    store: object
    schema: object
    defaults: tuple
    kept: tuple = ()


BLUEPRINTS = Target(blueprints, BlueprintSchema(), ("entitlementType", "entitledUsers", "inactive", "tags"))
TARGETS = {
    "kubernetes-quota": Target(profiles, ProfileSchema(), ("entitledUsers",), kept=("defaultProfile", "entitledUsers"))
}


def run(body, user, dry_run):
    """The report of importing an import's `body` (ImportSchema's, loaded): one result per
    template of its document, in order, and the counts."""
    fmt, source, defaults = body["format"], body["source"], body["defaults"]
    try:
        found = formats.candidates(fmt, body["document"], body["files"], defaults)
    except ValueError as exc:
        raise Invalid({"document": [f"Not {formats.FORMATS[fmt].named} document: {exc}"]}) from None
    if len(found) > MAX_TEMPLATES:
        raise Invalid({"document": [f"{len(found)} templates; at most {MAX_TEMPLATES} are imported at once."]})
    target = TARGETS.get(fmt, BLUEPRINTS)
    made = target.store.imported_from(source, user)
    keys = [candidate.key for candidate in found]
    for index, candidate in enumerate(found):
        if candidate.key in keys[:index]:
            candidate.problems.append(f"The key {candidate.key!r} is already a template of this document.")
    results = [None] * len(found)
    for index in reversed(range(len(found))):  # the document's first is the newest, first in lists and exports
        results[index] = _result(found[index], body, target, made, user, dry_run)
    counts = {outcome: sum(result["outcome"] == outcome for result in results) for outcome in OUTCOMES}
    return {"source": source, "results": results, "counts": counts}


def _result(candidate, body, target, made, user, dry_run):
    """One template's result: skipped, refused, or written (`made`: what the caller's imports of
    the source made, by key)."""
    result = {
        "key": one_line(candidate.key),
        "title": one_line(candidate.title),
        "id": None,
        "problems": candidate.problems,
        "notes": candidate.notes,
    }
    if candidate.skipped:
        return {**result, "outcome": "skipped", "notes": [*candidate.notes, candidate.skipped]}
    if candidate.problems:
        return {**result, "outcome": "refused"}
    origin = {"format": body["format"], "name": body["source"], "key": candidate.key, **candidate.origin}
    fields = secrets_marked(_with_defaults(candidate.fields, body["defaults"], target.defaults), candidate.notes)
    stored = target.store.owned(candidate.exported_from, user)
    if stored is not None:  # an export of the caller's own: that document, wherever it came from
        origin = stored.get("source")
    else:
        stored = made.get(candidate.key)
    return {**result, **_write(target, fields, origin, stored, user, dry_run)}


def _with_defaults(fields, defaults, applying):
    """The import's `defaults` (those `applying` to what it makes) over a template's fields (its
    tags added to the template's)."""
    fields = {**fields, **{key: defaults[key] for key in applying if key in defaults}}
    if defaults.get("tags") and "tags" in applying:
        fields["tags"] = [*(fields.get("tags") or []), *defaults["tags"]]
    return fields


def _write(target, fields, origin, stored, user, dry_run):
    """{outcome, id, problems} of writing one template: created, updated, unchanged or refused."""
    store = target.store
    try:
        loaded = target.schema.load(fields)
        if stored is None:
            doc = store.create({**loaded, "source": origin}, user, dry_run=dry_run)
            return _made("created", None if dry_run else str(doc["_id"]), store.seen_by(doc, user), dry_run)
        changes = {
            key: value
            for key, value in loaded.items()
            if not _same(stored.get(key), value) and (key in fields or key not in target.kept)
        }
        changes = store.differing(stored, changes)
        if stored.get("source") != origin:
            changes["source"] = origin
        if not changes:
            return _made("unchanged", str(stored["_id"]), store.seen_by(stored, user), dry_run)
        doc = store.update(str(stored["_id"]), user, changes, dry_run=dry_run)
        return _made("updated", str(stored["_id"]), store.seen_by(doc, user), dry_run)
    except ma.ValidationError as exc:
        return {"outcome": "refused", "problems": _flattened(exc.messages)}
    except Invalid as exc:
        return {"outcome": "refused", "problems": _flattened(exc.errors)}
    except Collision:  # a concurrent import of the same source made it between the lookup and the write
        problem = "source: a concurrent import of this source made it first; import again to update it."
        return {"outcome": "refused", "problems": [problem]}
    except NotFound:  # deleted between the lookup and the write
        problem = f"source: the {store.noun} an earlier import of this source made was deleted meanwhile; import again."
        return {"outcome": "refused", "problems": [problem]}


def _made(outcome, id_text, doc, dry_run):
    """A write's result; a dry run's carries the blueprint it would leave (its parameters are
    how a client proposes them for a definition it has)."""
    return {"outcome": outcome, "id": id_text, **({"blueprint": doc} if dry_run else {})}


def _same(stored, value):
    """Whether a field is unchanged; an empty list, null and absence are the same."""
    value = yamlguard.text_of(value)  # a definition, parsed
    return stored == value or (stored in (None, [], "") and value in (None, [], ""))


def _joined(where, key):
    return f"{where}.{key}" if where else str(key)


def _flattened(messages, where=""):
    """A create's 422 `errors` as a list of `place: message`."""
    if isinstance(messages, dict):
        return [line for key, inner in messages.items() for line in _flattened(inner, _joined(where, key))]
    if isinstance(messages, list) and all(isinstance(item, str) for item in messages):
        return [f"{where}: {message}" if where else message for message in messages]
    return [line for item in messages for line in _flattened(item, where)]
