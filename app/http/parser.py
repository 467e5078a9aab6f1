"""How request bodies and query strings are read, in the contract's order of checks.

Every body is read after authentication has run (the view's decorators), so the order is
credentials (401), role (403), size (413), content type (415), syntax (400), then the schema
(422). An unknown query parameter (a misspelt filter, `name[$ne]`) is a 422, never ignored.
"""

import json

import marshmallow as ma
from flask import current_app, g
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


def is_json(mimetype):
    return mimetype == "application/json" or (mimetype.endswith("+json") and "/" in mimetype)


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


class Parser(FlaskParser):
    DEFAULT_VALIDATION_STATUS = 422
    DEFAULT_UNKNOWN_BY_LOCATION = {**FlaskParser.DEFAULT_UNKNOWN_BY_LOCATION, "query": ma.RAISE}

    def load_json(self, req, schema):
        limit = req.max_content_length  # the setting, or a route's own (imports)
        if req.content_length is not None and limit is not None and req.content_length > limit:
            raise RequestEntityTooLarge()
        if not is_json(req.mimetype):
            raise UnsupportedMediaType()
        try:
            body = current_app.json.loads(_whole_body(req, limit))
        except json.JSONDecodeError as exc:
            raise BadRequest(f"The body is not valid JSON: {exc.msg} at character {exc.pos}.") from None
        if not isinstance(body, dict):
            raise BadRequest("The body must be a JSON object.")
        deepest = g.get("json_depth", MAX_JSON_DEPTH)  # a route may allow more (imports)
        if _depth(body, deepest) > deepest:
            raise BadRequest(f"The body is nested deeper than {deepest} levels.")
        return body
