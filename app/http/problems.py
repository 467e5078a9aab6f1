"""Every error is an RFC 9457 problem body; this module is the only place that builds one, and
holds the error handlers that turn every exception into one: the service's own (app/errors.py),
the HTTP ones of routing and parsing (flask-smorest's Api hands them here), the database's, and
any other (a 500 whose details go to the log only)."""

import logging
from http import HTTPStatus

import marshmallow as ma
from flask import current_app
from pymongo.errors import ConnectionFailure, PyMongoError
from werkzeug.exceptions import HTTPException

from app.errors import Problem, Unavailable
from app.http.preconditions import etag
from app.model.fields import rfc3339
from app.ops.logs import request_id
from app.ops.metrics import DATABASE_ERRORS

log = logging.getLogger(__name__)

PROBLEM_JSON = "application/problem+json"

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


class ProblemSchema(ma.Schema):
    """The body of every error (documentation; `problem_body` writes it)."""

    type = ma.fields.String()
    title = ma.fields.String()
    status = ma.fields.Integer()
    detail = ma.fields.String()
    errors = ma.fields.Dict(keys=ma.fields.String(), values=ma.fields.List(ma.fields.String()))
    rev = ma.fields.Integer(metadata={"description": "412 only: the current revision."})
    updatedBy = ma.fields.String(metadata={"description": "412 only: who saved the current revision."})
    updatedAt = ma.fields.String(metadata={"description": "412 only: when it was saved (RFC 3339)."})
    quota = ma.fields.Dict(
        metadata={
            "description": "409 of an admission only: per resource the profile caps, its required, used, cap "
            "and available amounts."
        }
    )
    requestId = ma.fields.String()


def problem_body(status, detail=None, errors=None, request_id=None, current=None):
    body = {
        "type": "about:blank",
        "title": HTTPStatus(status).phrase,
        "status": status,
        "detail": detail or DETAILS.get(status, HTTPStatus(status).description),
    }
    if errors:
        body["errors"] = errors
    body.update(current or {})
    body["requestId"] = request_id
    return body


def problem(status, detail=None, errors=None, headers=None, current=None):
    """The problem response of this request."""
    response = current_app.json.response(problem_body(status, detail, errors, request_id(), current))
    response.status_code = status
    response.mimetype = PROBLEM_JSON
    response.headers["Cache-Control"] = "no-store"  # an error describes this request only
    response.headers.extend(headers or {})
    return response


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
    return _flatten(
        {
            k: v
            for location in messages.values()
            for k, v in (location.items() if isinstance(location, dict) else [("_body", location)])
        }
    )


def http_error(exc):
    """An HTTPException (abort(), webargs' 422, werkzeug's 404, 405, 413...) as a problem."""
    data = getattr(exc, "data", None) or {}
    headers = [(k, v) for k, v in exc.get_response().headers if k in ("Allow", "Retry-After")]
    headers.extend((data.get("headers") or {}).items())
    errors = data.get("errors") or (data.get("messages") and _field_errors(data["messages"]))
    detail = data.get("message") or DETAILS.get(exc.code) or exc.description
    return problem(exc.code, detail, errors, headers)


def _refused(exc):
    """One of the service's own refusals; a 412's with the current version and its ETag."""
    headers, current = exc.headers, exc.current
    if current is not None:
        headers = {**headers, "ETag": etag(current)}
        current = {**current, "updatedAt": current["updatedAt"] and rfc3339(current["updatedAt"])}
    return problem(
        exc.status, exc.detail, exc.errors and _flatten(exc.errors), headers, {**(current or {}), **(exc.members or {})}
    )


def _database_error(exc):
    DATABASE_ERRORS.labels(type(exc).__name__).inc()
    if isinstance(exc, ConnectionFailure):
        log.warning("database unavailable: %s", type(exc).__name__)
        return _refused(Unavailable())
    return _internal_error(exc)


def _internal_error(exc):
    log.exception("unhandled error in request %s", request_id())
    return problem(500)


def init_app(app):
    app.register_error_handler(HTTPException, http_error)
    app.register_error_handler(Problem, _refused)
    app.register_error_handler(PyMongoError, _database_error)
    app.register_error_handler(Exception, _internal_error)
