"""An instance's releases, as Helm keeps them: every create, upgrade and rollback is release n+1,
with the revision it rendered and the values it used (generated ones included, so a rollback
renders them as generated then). They live in the instance's own document, written by the same
conditional write as the change they record, so no release is lost nor recorded for a write that
did not land; the newest RELEASES_KEPT stay, and each pins its revision against the blueprint's
history pruning (`by_blueprint_release`)."""

from flask import current_app

from app.errors import NotFound


def _recorded(doc, number):
    """The release the instance `doc` is, numbered `number`."""
    return {
        "release": number,
        "rev": doc["blueprintRev"],
        "values": doc["values"],
        "kept": doc["kept"],
        "at": doc["updatedAt"],
        "by": doc["updatedBy"],
    }


def kept(doc):
    """The instance's releases, oldest first; one stored before releases were recorded has its
    current state as release 1."""
    return doc.get("releases") or [_recorded(doc, 1)]


def first(doc):
    """What a create adds to its instance `doc`: release 1."""
    return {"release": 1, "releases": [_recorded(doc, 1)]}


def added(doc, changed):
    """What an upgrade or rollback of `doc` to `changed` (its new fields) adds: the next release,
    and the kept ones with it, the oldest beyond RELEASES_KEPT gone."""
    earlier = kept(doc)
    number = earlier[-1]["release"] + 1
    releases = [*earlier, _recorded({**doc, **changed}, number)][-current_app.config["RELEASES_KEPT"] :]
    return {"release": number, "releases": releases}


def one(doc, number):
    """Release `number` of the instance (a 404 when it is not kept)."""
    for release in kept(doc):
        if release["release"] == number:
            return release
    raise NotFound(f"No kept release {number} of this instance.")


def page(doc, limit, below=None):
    """Up to `limit` releases newest first, numbered below `below`, and the number the next page
    goes below, or None."""
    newest_first = [release for release in reversed(kept(doc)) if below is None or release["release"] < below]
    items = newest_first[:limit]
    return items, items[-1]["release"] if len(newest_first) > limit else None
