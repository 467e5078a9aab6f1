"""flask-smorest wired to the contract: problem bodies, and the body checks in the contract's order.

Every body is read by `Parser`, after authentication has run (the view's decorators), so the
order is credentials (401), role (403), size (413), content type (415), syntax (400), then the
schema (422).
"""
from http import HTTPStatus

import flask_smorest
import marshmallow as ma
import orjson
from apispec.ext.marshmallow import MarshmallowPlugin
from flask import current_app
from flask.json.provider import JSONProvider
from flask_smorest import abort
from flask_smorest.utils import prepare_response
from webargs.flaskparser import FlaskParser
from werkzeug.exceptions import RequestEntityTooLarge

from app import errors


class OrjsonProvider(JSONProvider):
    """orjson: several times faster than the standard library for our small documents."""

    def dumps(self, obj, **kwargs):
        return orjson.dumps(obj).decode()

    def loads(self, s, **kwargs):
        return orjson.loads(s)

    def response(self, *args, **kwargs):
        obj = self._prepare_response_obj(args, kwargs)
        return self._app.response_class(orjson.dumps(obj), mimetype="application/json")


MAX_JSON_DEPTH = 16  # our bodies need 2; orjson itself stops at 1024


def _depth(value):
    """Nesting depth of parsed JSON, without recursion (a hostile body must not exhaust the stack)."""
    deepest, stack = 0, [(value, 1)]
    while stack:
        node, depth = stack.pop()
        if isinstance(node, dict):
            node = node.values()
        elif not isinstance(node, list):
            continue
        deepest = max(deepest, depth)
        if deepest > MAX_JSON_DEPTH:
            break
        stack.extend((child, depth + 1) for child in node if isinstance(child, (dict, list)))
    return deepest


def is_json(mimetype):
    return mimetype == "application/json" or (mimetype.endswith("+json") and "/" in mimetype)


class Parser(FlaskParser):
    DEFAULT_VALIDATION_STATUS = 422
    # An unknown query parameter (a misspelt filter, `name[$ne]`) is refused, never ignored.
    DEFAULT_UNKNOWN_BY_LOCATION = {**FlaskParser.DEFAULT_UNKNOWN_BY_LOCATION, "query": ma.RAISE}

    def _raw_load_json(self, req):
        limit = current_app.config["MAX_CONTENT_LENGTH"]
        if req.content_length is not None and req.content_length > limit:
            raise RequestEntityTooLarge()
        if not is_json(req.mimetype):
            abort(415)
        try:
            body = orjson.loads(req.get_data(cache=True))  # 413 here too for a chunked body
        except orjson.JSONDecodeError as exc:
            abort(400, message=f"The body is not valid JSON: {exc.msg} at character {exc.pos}.")
        if not isinstance(body, dict):
            abort(400, message="The body must be a JSON object.")
        if _depth(body) > MAX_JSON_DEPTH:
            abort(400, message=f"The body is nested deeper than {MAX_JSON_DEPTH} levels.")
        return body


class Blueprint(flask_smorest.Blueprint):
    ARGUMENTS_PARSER = Parser()


class ProblemSchema(ma.Schema):
    type = ma.fields.String()
    title = ma.fields.String()
    status = ma.fields.Integer()
    detail = ma.fields.String()
    errors = ma.fields.Dict(keys=ma.fields.String(), values=ma.fields.List(ma.fields.String()))
    requestId = ma.fields.String()


def schema_name(schema):
    """Profile, ProfilePatch (a partial load, as PATCH takes), ProfileQuery..."""
    cls = schema if isinstance(schema, type) else type(schema)
    partial = not isinstance(schema, type) and schema.partial
    return cls.__name__.removesuffix("Schema") + ("Patch" if partial else "")


def _header(description, schema=None):
    return {"description": description, "schema": schema or {"type": "string"}}


ERROR_HEADERS = {
    401: {"WWW-Authenticate": _header("The schemes accepted: Basic and Bearer.")},
    409: {"Retry-After": _header("Seconds to wait before retrying (a request in flight).", {"type": "integer"})},
    429: {"Retry-After": _header("Seconds until attempts are accepted again.", {"type": "integer"})},
    503: {"Retry-After": _header("Seconds to wait before retrying.", {"type": "integer"})},
}


class Api(flask_smorest.Api):
    ERROR_SCHEMA = ProblemSchema

    def _register_responses(self):
        """Every error response is a problem+json body; some carry headers a client needs."""
        for status in HTTPStatus:
            response = {"description": status.phrase}
            if status >= 400:
                response["schema"] = self.ERROR_SCHEMA
                response["headers"] = ERROR_HEADERS.get(status, {})
            prepare_response(response, self.spec, errors.PROBLEM_JSON)
            self.spec.components.response(status.name, response, lazy=True)
        response = {"description": "An unexpected error (500).", "schema": self.ERROR_SCHEMA}
        prepare_response(response, self.spec, errors.PROBLEM_JSON)
        self.spec.components.response("DEFAULT_ERROR", response, lazy=True)

    def __init__(self, app):
        super().__init__(app, spec_kwargs={"marshmallow_plugin": MarshmallowPlugin(schema_name_resolver=schema_name)})

    def _register_error_handlers(self):
        errors.init_app(self._app)


def problems(blp, *statuses):
    """Document the error statuses an operation may answer with (401, 429 and 503 always)."""
    def decorate(view):
        for status in sorted({401, 429, 503, *statuses}, reverse=True):
            view = blp.alt_response(status, response=HTTPStatus(status).name)(view)
        return view
    return decorate


DESCRIPTION = """Profiles (named sets of resource caps) and blueprints (application templates).

Every response carries `API-Version: 1.0.0` and `X-Request-ID` (taken from the request when it is
1-128 characters of letters, digits and `._:-`, else generated). Every error is
`application/problem+json` with a `requestId`; validation errors name each field in `errors`.
An unsupported method on a path is a 405 with `Allow`; a body over 1 MiB is a 413.
"""

SPEC = {
    "API_TITLE": "Profiles and Blueprints",
    "API_SPEC_OPTIONS": {"info": {"description": DESCRIPTION}},
    "API_VERSION": errors.API_VERSION,
    "OPENAPI_VERSION": "3.1.0",
    "OPENAPI_URL_PREFIX": "/",
    "OPENAPI_JSON_PATH": "openapi.json",
}
