"""Headers on every response, errors included: `API-Version`, `X-Request-ID`, and
`X-Content-Type-Options: nosniff` (a body is only ever what its Content-Type says)."""

import re
import uuid

from flask import g, request

API_VERSION = "1.0.0"
_REQUEST_ID = re.compile(r"[A-Za-z0-9._:-]{1,128}")


def request_id():
    """The caller's X-Request-ID when it is 1-128 safe characters, else a new one; one per request."""
    if "request_id" not in g:
        given = request.headers.get("X-Request-ID", "")
        g.request_id = given if _REQUEST_ID.fullmatch(given) else uuid.uuid4().hex
    return g.request_id


def _stamp(response):
    response.headers["API-Version"] = API_VERSION
    response.headers["X-Request-ID"] = request_id()
    response.headers["X-Content-Type-Options"] = "nosniff"
    return response


def init_app(app):
    app.after_request(_stamp)
