"""An import's writes: each template its own create or update through the blueprint store (the
same rules, history and requirements as a request's), found again by its `source`, so that a
refused one never undoes another and a re-import updates what the last one made."""

import marshmallow as ma

from app.blueprints.schemas import BlueprintSchema
from app.blueprints.storage import store
from app.errors import Forbidden, Invalid, NotFound
from app.imports import formats
from app.storage.resource_store import Collision

MAX_TEMPLATES = 1000
OUTCOMES = ("created", "updated", "unchanged", "skipped", "refused")
SCHEMA = BlueprintSchema()  # built once: a template is loaded as a create's body is


NAMED = {"portainer": "a Portainer", "openshift": "an OpenShift", "compose": "a Compose", "native": "a native"}


def run(fmt, source, document, files, defaults, user, dry_run):
    """The report of importing `document`: one result per template, in order, and the counts."""
    try:
        found = formats.candidates(fmt, document, files, defaults)
    except ValueError as exc:
        raise Invalid({"document": [f"Not {NAMED.get(fmt, fmt)} document: {exc}"]}) from None
    if len(found) > MAX_TEMPLATES:
        raise Invalid({"document": [f"{len(found)} templates; at most {MAX_TEMPLATES} are imported at once."]})
    made = made_by(source)
    keys = [candidate.key for candidate in found]
    for index, candidate in enumerate(found):
        if candidate.key in keys[:index]:
            candidate.problems.append(f"The key {candidate.key!r} is already a template of this document.")
    results = [None] * len(found)
    for index in reversed(range(len(found))):  # the document's first is the newest, first in lists and exports
        candidate = found[index]
        result = {"key": candidate.key, "title": candidate.title, "id": None, "problems": candidate.problems,
                  "notes": candidate.notes}  # fmt: skip
        if candidate.skipped:
            result.update(outcome="skipped", notes=[*candidate.notes, candidate.skipped])
        elif candidate.problems:
            result["outcome"] = "refused"
        else:
            origin = {"format": fmt, "name": source, "key": candidate.key, **candidate.origin}
            result.update(_write(_with_defaults(candidate.fields, defaults), origin, made.get(candidate.key),
                                 user, dry_run))  # fmt: skip
        results[index] = result
    counts = {outcome: sum(result["outcome"] == outcome for result in results) for outcome in OUTCOMES}
    return {"source": source, "results": results, "counts": counts}


def made_by(source):
    """{key: blueprint} of what earlier imports of `source` made (the source index serves it)."""
    return {doc["source"]["key"]: doc for doc in store.coll().find({"source.name": source})}


def _with_defaults(fields, defaults):
    """The import's `defaults` over a template's fields (its tags added to the template's)."""
    fields = {**fields, **{key: defaults[key] for key in ("entitlementType", "entitledUsers", "inactive")
                           if key in defaults}}  # fmt: skip
    if defaults.get("tags"):
        fields["tags"] = [*(fields.get("tags") or []), *defaults["tags"]]
    return fields


def _write(fields, origin, stored, user, dry_run):
    """{outcome, id, problems} of writing one template: created, updated, unchanged or refused."""
    try:
        loaded = SCHEMA.load(fields)
        if stored is None:
            doc = store.create({**loaded, "source": origin}, user, dry_run=dry_run)
            return _made("created", None if dry_run else str(doc["_id"]), doc, dry_run)
        changes = {key: value for key, value in loaded.items() if not _same(stored.get(key), value)}
        if stored.get("source") != origin:
            changes["source"] = origin
        if not changes:
            return _made("unchanged", str(stored["_id"]), stored, dry_run)
        doc = store.update(str(stored["_id"]), user, changes, dry_run=dry_run)
        return _made("updated", str(stored["_id"]), doc, dry_run)
    except ma.ValidationError as exc:
        return {"outcome": "refused", "problems": _flattened(exc.messages)}
    except Invalid as exc:
        return {"outcome": "refused", "problems": _flattened(exc.errors)}
    except Collision:  # a concurrent import of the same source made it between the lookup and the write
        problem = "source: a concurrent import of this source made it first; import again to update it."
        return {"outcome": "refused", "problems": [problem]}
    except (Forbidden, NotFound):
        owner = "another user's" if stored["owner"] != user["username"] else "a"
        problem = f"source: {owner} blueprint an earlier import of this source made, which the caller may not change."
        return {"outcome": "refused", "problems": [problem]}


def _made(outcome, id_text, doc, dry_run):
    """A write's result; a dry run's carries the blueprint it would leave (its parameters are
    how a client proposes them for a definition it has)."""
    return {"outcome": outcome, "id": id_text, **({"blueprint": doc} if dry_run else {})}


def _same(stored, value):
    """Whether a field is unchanged; an empty list, null and absence are the same."""
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
