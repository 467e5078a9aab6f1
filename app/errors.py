"""Every error is an RFC 9457 problem body; this module is the only place that builds one."""
import logging
import re
import uuid
from http import HTTPStatus

from flask import current_app, g, request
from pymongo.errors import ConnectionFailure, PyMongoError
from werkzeug.exceptions import HTTPException

log = logging.getLogger(__name__)

API_VERSION = "1.0.0"
PROBLEM_JSON = "application/problem+json"
RETRY_AFTER_UNAVAILABLE = "2"
_REQUEST_ID = re.compile(r"[A-Za-z0-9._:-]{1,128}")

DETAILS = {
    400: "The body is not valid JSON.",
    401: "Valid credentials are required.",
    403: "Your role does not allow this operation.",
    404: "No such resource.",
    405: "The method is not allowed on this path.",
    413: "The body is larger than 1 MiB.",
    415: "The body must be JSON (Content-Type: application/json).",
    422: "The request is not valid.",
    500: "An internal error occurred; it has been logged.",
    503: "The database cannot be reached; retry later.",
}


class Invalid(Exception):
    """A 422 found after schema validation (an unknown user, a rule that needs stored data)."""

    def __init__(self, errors):
        super().__init__(errors)
        self.errors = errors


def problem(status, detail=None, errors=None, headers=None):
    body = {
        "type": "about:blank",
        "title": HTTPStatus(status).phrase,
        "status": status,
        "detail": detail or DETAILS.get(status, HTTPStatus(status).description),
    }
    if errors:
        body["errors"] = errors
    body["requestId"] = request_id()
    response = current_app.json.response(body)
    response.status_code = status
    response.mimetype = PROBLEM_JSON
    response.headers.extend(headers or {})
    return response


def request_id():
    if "request_id" not in g:
        given = request.headers.get("X-Request-ID", "")
        g.request_id = given if _REQUEST_ID.fullmatch(given) else uuid.uuid4().hex
    return g.request_id


def _flatten(messages, prefix=""):
    """{"field": ["message"]} at any depth: nested messages (by location from webargs, by index
    for list items) become dotted paths, so "entitledUsers.3" names the fourth user."""
    flat = {}
    for key, value in messages.items():
        path = f"{prefix}.{key}" if prefix else str(key)
        if isinstance(value, dict):
            flat.update(_flatten(value, path))
        else:
            flat[path] = [str(message) for message in value]
    return flat


def _field_errors(messages):
    """webargs keys messages by location ({"json": {...}, "query": {...}}); clients want fields."""
    return _flatten({k: v for location in messages.values() for k, v in
                     (location.items() if isinstance(location, dict) else [("_body", location)])})


def _http_error(exc):
    data = getattr(exc, "data", None) or {}
    headers = [(k, v) for k, v in exc.get_response().headers if k in ("Allow", "Retry-After")]
    headers.extend((data.get("headers") or {}).items())
    errors = data.get("errors") or (data.get("messages") and _field_errors(data["messages"]))
    detail = data.get("message") or DETAILS.get(exc.code) or exc.description
    return problem(exc.code, detail, errors, headers)


def _invalid(exc):
    return problem(422, errors=_flatten(exc.errors))


def _database_error(exc):
    if isinstance(exc, ConnectionFailure):
        log.warning("database unavailable: %s", type(exc).__name__)
        return problem(503, headers={"Retry-After": RETRY_AFTER_UNAVAILABLE})
    return _internal_error(exc)


def _internal_error(exc):
    log.exception("unhandled error in request %s", request_id())
    return problem(500)


def _stamp(response):
    response.headers["API-Version"] = API_VERSION
    response.headers["X-Request-ID"] = request_id()
    return response


def init_app(app):
    app.register_error_handler(HTTPException, _http_error)
    app.register_error_handler(Invalid, _invalid)
    app.register_error_handler(PyMongoError, _database_error)
    app.register_error_handler(Exception, _internal_error)
    app.after_request(_stamp)
