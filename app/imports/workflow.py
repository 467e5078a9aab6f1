"""An import, from a document to its report: the templates its format finds (formats.py), each
then its own create or update through the blueprint store (the same rules, history and
requirements as a request's; a `kubernetes-quota` import's profile through the profile store),
found again by its `source`, so that a refused one never undoes another and a re-import updates
what the last one made.

Each document an import writes records, in `source.rev`, the revision that write gave it: a
blueprint whose owner changed it since (its current fields are not that revision's) is a
`conflict`, left as its owner made it and reported with the diff, unless the import is `forced`;
one whose template is no longer in the document is `gone`."""

import contextlib
import difflib
from dataclasses import dataclass, field

import marshmallow as ma

from app.blueprints.history.storage import store as history
from app.blueprints.history.storage import writable
from app.blueprints.schemas import BlueprintSchema
from app.blueprints.storage import store as blueprints
from app.errors import Forbidden, Invalid, NotFound
from app.imports import formats
from app.imports.candidate import secrets_marked
from app.imports.schemas import OUTCOMES
from app.model import yamlguard
from app.model.fields import one_line
from app.profiles.schemas import ProfileSchema
from app.profiles.storage import store as profiles
from app.storage.resource_store import Collision


@dataclass(frozen=True)
class Target:
    """What an import makes: the store it writes through, the schema a template is loaded with
    (as a create's body is), the import `defaults` that apply to it, and the fields a re-import
    leaves as their owner set them unless the document or the defaults give them."""

    store: object
    schema: object
    defaults: tuple
    kept: tuple = ()
    versioned: bool = False  # its documents keep their history: a local change is told from a sync's


@dataclass(frozen=True)
class Run:
    """How an import runs beyond its body: for whom (`owner`: a user or `team:NAME`; None: the
    caller), whether it overwrites local changes (`force`), marks what is gone (`marks_gone`, a
    source's sync) and who hears of its progress (a job's `Progress`)."""

    owner: str = None
    force: bool = False
    marks_gone: bool = False
    progress: object = field(default=None, compare=False)


TARGETS = {  # what each format's `makes` names
    "blueprints": Target(
        blueprints,
        BlueprintSchema(),
        ("entitlementType", "entitledUsers", "entitledTeams", "inactive", "tags"),
        versioned=True,
    ),
    "profiles": Target(profiles, ProfileSchema(), ("entitledUsers",), kept=("defaultProfile", "entitledUsers")),
}


def found(body):
    """The templates of an import's `body` (ImportSchema's, loaded), each a `Candidate`; a 422
    naming `document` when it is not of its format or holds too many."""
    fmt = body["format"]
    try:
        candidates = formats.candidates(fmt, body["document"], body["files"], body["defaults"])
    except ValueError as exc:
        raise Invalid({"document": [f"Not {formats.FORMATS[fmt].named} document: {exc}"]}) from None
    most = formats.MAX_TEMPLATES
    if len(candidates) > most:
        raise Invalid({"document": [f"{len(candidates)} templates; at most {most} are imported at once."]})
    return candidates


def run(body, found, user, dry_run, how=Run()):
    """The report of importing `found`, the templates of an import's `body`: one result per
    template, in order, then one per template gone, and the counts."""
    source, owner = body["source"], how.owner or user["username"]
    target = TARGETS[formats.FORMATS[body["format"]].makes]
    made = target.store.imported_from(source, owner)
    keys = [candidate.key for candidate in found]
    present = set(keys)
    for index, candidate in enumerate(found):
        if candidate.key in keys[:index]:
            candidate.problems.append(f"The key {candidate.key!r} is already a template of this document.")
    results = [None] * len(found)
    for done, index in enumerate(reversed(range(len(found))), 1):  # the first is the newest, first in lists
        results[index] = _result(found[index], body, target, made, user, dry_run, how)
        if how.progress is not None:
            how.progress.step(done, len(found))
    results += [_gone(target, stored, user, dry_run, how) for key, stored in made.items() if key not in present]
    counts = {outcome: sum(result["outcome"] == outcome for result in results) for outcome in OUTCOMES}
    return {"source": source, "results": results, "counts": counts}


def _result(candidate, body, target, made, user, dry_run, how):
    """One template's result: skipped, refused, or written (`made`: what the owner's imports of
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
    if stored is not None and followed(body["source"]) and (stored.get("source") or {}).get("name") != body["source"]:
        why = f"names the {target.store.noun} {candidate.exported_from}, which this source did not make"
        return {**result, "outcome": "refused", "problems": [f"{why}: a source writes only what it made."]}
    if stored is not None:  # an export of the caller's own: that document, wherever it came from
        origin = stored.get("source")
    else:
        stored = made.get(candidate.key)
        fields = {**fields, "owner": how.owner} if stored is None and how.owner else fields
    return {**result, **_write(target, fields, origin, stored, user, dry_run, how.force)}


def followed(source):
    """Whether an import's `source` names a source followed from git (`source:<id>`)."""
    return source.startswith("source:")


def _gone(target, stored, user, dry_run, how):
    """The result of a document an earlier import made whose template is no longer there: left
    as it is (a sync marks it `source.gone`, once)."""
    origin = stored["source"]
    result = {"key": origin["key"], "title": stored["name"], "outcome": "gone", "id": str(stored["_id"])}
    result |= {"problems": [], "notes": ["No longer in the source: kept, as instances may use it."]}
    if how.marks_gone and not origin.get("gone") and not dry_run:
        with contextlib.suppress(Invalid, NotFound, Collision):  # changed or deleted meanwhile: the next sync marks it
            target.store.update(str(stored["_id"]), user, {"source": {**origin, "gone": True}})
    return result


def _with_defaults(fields, defaults, applying):
    """The import's `defaults` (those `applying` to what it makes) over a template's fields (its
    tags added to the template's)."""
    fields = {**fields, **{key: defaults[key] for key in applying if key in defaults and key != "tags"}}
    if defaults.get("tags") and "tags" in applying:  # added to the template's own (none given: those)
        fields["tags"] = [*(fields.get("tags") or []), *defaults["tags"]]
    return fields


def _write(target, fields, origin, stored, user, dry_run, force=False):
    """{outcome, id, problems} of writing one template: created, updated, unchanged, in conflict
    with a local change, or refused."""
    store = target.store
    try:
        loaded = target.schema.load(fields)
        if stored is None:
            doc = store.create({**loaded, "source": {**origin, "rev": 1}}, user, dry_run=dry_run)
            return _made("created", None if dry_run else str(doc["_id"]), store.seen_by(doc, user), dry_run)
        changes = {
            key: value
            for key, value in loaded.items()
            if key != "owner" and not _same(stored.get(key), value) and (key in fields or key not in target.kept)
        }
        changes = store.differing(stored, changes)
        if changes and not force and target.versioned and _changed_here(stored):
            return {"outcome": "conflict", "id": str(stored["_id"]), "diff": _diff(stored, changes)}
        if not changes and _without_rev(stored.get("source")) == _without_rev(origin):
            return _made("unchanged", str(stored["_id"]), store.seen_by(stored, user), dry_run)
        changes["source"] = {**origin, "rev": stored["rev"] + 1} if origin else None
        doc = store.update(str(stored["_id"]), user, changes, dry_run=dry_run)
        return _made("updated", str(stored["_id"]), store.seen_by(doc, user), dry_run)
    except ma.ValidationError as exc:
        return {"outcome": "refused", "problems": _flattened(exc.messages)}
    except Invalid as exc:
        return {"outcome": "refused", "problems": _flattened(exc.errors)}
    except Forbidden as exc:  # a field only an admin sets (a profile's gateway, its prices)
        return {"outcome": "refused", "problems": [str(exc.detail)]}
    except Collision:  # a concurrent import of the same source made it between the lookup and the write
        problem = "source: a concurrent import of this source made it first; import again to update it."
        return {"outcome": "refused", "problems": [problem]}
    except NotFound:  # deleted between the lookup and the write
        problem = f"source: the {store.noun} an earlier import of this source made was deleted meanwhile; import again."
        return {"outcome": "refused", "problems": [problem]}


def _without_rev(origin):
    """Where an import found it, without the revision that import gave it (a mark of `gone`
    stays: a template back in its source is written, the mark gone)."""
    return origin and {key: value for key, value in origin.items() if key != "rev"}


def _changed_here(stored):
    """Whether the blueprint was changed since the import that wrote it: its current fields are
    not those of the revision that import gave it (one written before imports recorded it: not)."""
    synced = (stored.get("source") or {}).get("rev")
    if synced is None or synced == stored["rev"]:
        return False
    try:
        return writable(history.version(stored, synced)) != writable(stored)
    except NotFound:  # no longer kept: changed many times since
        return True


def _diff(stored, changes):
    """What the import would change: the definitions' unified diff, then the other fields."""
    before, after = (
        (stored.get("yml") or "").splitlines(True),
        (yamlguard.text_of(changes.get("yml", stored.get("yml"))) or "").splitlines(True),
    )
    text = "".join(difflib.unified_diff(before, after, f"rev {stored['rev']} (here)", "the source"))
    others = sorted(key for key in changes if key != "yml")
    return text + (f"Other fields changed: {', '.join(others)}.\n" if others else "")


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
