"""ETags and the preconditions that compare them (RFC 9110): If-Match on writes, If-None-Match
on reads. A resource's ETag is its revision, bumped by every write of it."""

import re

from flask import request

from app.errors import BadRequest

_ETAG_LIST = re.compile(r'^(\*|(W/)?"[\x21\x23-\x7e]*"( *, *(W/)?"[\x21\x23-\x7e]*")*)$')
_TAGS = {"type": "string", "pattern": _ETAG_LIST.pattern}
IF_MATCH = {
    "name": "If-Match",
    "in": "header",
    "schema": _TAGS,
    "description": "ETag of the version this change was decided on (412 if stale; `*` matches any).",
}
IF_NONE_MATCH = {
    "name": "If-None-Match",
    "in": "header",
    "schema": _TAGS,
    "description": "ETags the caller holds; 304 when one is current.",
}


def etag(doc):
    return f'"{doc["rev"]}"'


def _tags(name):
    """The entity tags of a precondition header, None when it is absent; a malformed one is a 400."""
    header = request.headers.get(name)
    if header is None:
        return None
    if not _ETAG_LIST.fullmatch(header.strip()):
        raise BadRequest(f"Malformed {name} header: expected * or a list of quoted entity tags.")
    return [tag.strip() for tag in header.split(",")]


def is_current(doc):
    """Whether If-None-Match names `doc`'s version, so the caller's copy is current (weak comparison)."""
    tags = _tags("If-None-Match")
    if tags is None:
        return False
    return "*" in tags or etag(doc) in {tag.removeprefix("W/") for tag in tags}


def if_match():
    """The If-Match precondition as a test of a document, or None when none was sent (strong
    comparison: a weak tag never matches)."""
    tags = _tags("If-Match")
    if tags is None:
        return None
    return lambda doc: "*" in tags or etag(doc) in tags
