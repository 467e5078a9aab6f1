"""How request bodies and query strings are read, in the contract's order of checks.

Every body is read after authentication has run (the view's decorators), so the order is
credentials (401), role (403), size (413), content type (415), syntax (400), then the schema
(422). An unknown query parameter (a misspelt filter, `name[$ne]`) is a 422, never ignored.
"""

import json
from dataclasses import dataclass
from functools import wraps

import marshmallow as ma
from flask import current_app, request
from webargs.flaskparser import FlaskParser
from werkzeug.exceptions import RequestEntityTooLarge

from app.errors import BadRequest, UnsupportedMediaType

MAX_JSON_DEPTH = 16  # our bodies need 2; orjson itself stops at 1024


def _depth(value, most=MAX_JSON_DEPTH):
    """Nesting depth of parsed JSON, without recursion (a hostile body must not exhaust the stack)."""
    deepest, stack = 0, [(value, 1)]
    while stack:
        node, depth = stack.pop()
        if isinstance(node, dict):
            node = node.values()
        elif not isinstance(node, list):
            continue
        deepest = max(deepest, depth)
        if deepest > most:
            break
        stack.extend((child, depth + 1) for child in node if isinstance(child, (dict, list)))
    return deepest


@dataclass(frozen=True)
class BodyLimits:
    """How large (bytes) and how deep a route's JSON body may be."""

    max_bytes: int
    max_depth: int


def body_limits(max_bytes, max_depth):
    """Declares, on the view it decorates, limits of its own for its body (above the service's
    MAX_CONTENT_LENGTH and MAX_JSON_DEPTH: an import's catalog)."""

    def declare(view):
        view.body_limits = BodyLimits(max_bytes, max_depth)
        return view

    return declare


def _declared(req):
    """The body limits the view serving `req` declares (its method's, for a MethodView), or None:
    the service's."""
    view = current_app.view_functions.get(req.endpoint)
    handler = getattr(getattr(view, "view_class", None), req.method.lower(), view)
    return getattr(handler, "body_limits", None)


def is_json(mimetype):
    return mimetype == "application/json" or (mimetype.endswith("+json") and "/" in mimetype)


def bodiless(view):
    """For an operation that takes no body: a request naming a type that is not JSON (a cross-site
    form's `text/plain` or `application/x-www-form-urlencoded`, empty or not), or a body of no type,
    is a 415; checked after the credentials, in the contract's order."""

    @wraps(view)
    def checked(*args, **kwargs):
        if (request.mimetype and not is_json(request.mimetype)) or (not request.mimetype and request.content_length):
            raise UnsupportedMediaType()
        return view(*args, **kwargs)

    return checked


def _whole_body(req, limit):
    """The body, never cut short: werkzeug stops a chunked body (no Content-Length to check first)
    at the limit without a word, so it is read to one byte past the limit, and a body that
    reaches that byte is refused whole (413) instead of being read in part."""
    if limit is not None and req.content_length is None:
        req.max_content_length = limit + 1
    data = req.get_data(cache=True)
    if limit is not None and len(data) > limit:
        raise RequestEntityTooLarge()
    return data


def raw_json_body(req):
    """The bytes of a JSON body as sent (a webhook signs them), after the size (413) and type
    (415) checks every body gets."""
    limit = req.max_content_length
    if req.content_length is not None and limit is not None and req.content_length > limit:
        raise RequestEntityTooLarge()
    if not is_json(req.mimetype):
        raise UnsupportedMediaType()
    return _whole_body(req, limit)


class Parser(FlaskParser):
    DEFAULT_VALIDATION_STATUS = 422
    DEFAULT_UNKNOWN_BY_LOCATION = {**FlaskParser.DEFAULT_UNKNOWN_BY_LOCATION, "query": ma.RAISE}

    def load_json(self, req, schema):
        declared = _declared(req)
        if declared is not None:  # werkzeug reads the body up to the route's limit, not the setting's
            req.max_content_length = declared.max_bytes
        try:
            body = current_app.json.loads(raw_json_body(req))
        except json.JSONDecodeError as exc:
            raise BadRequest(f"The body is not valid JSON: {exc.msg} at character {exc.pos}.") from None
        if not isinstance(body, dict):
            raise BadRequest("The body must be a JSON object.")
        deepest = MAX_JSON_DEPTH if declared is None else declared.max_depth
        if _depth(body, deepest) > deepest:
            raise BadRequest(f"The body is nested deeper than {deepest} levels.")
        return body
