"""flask-smorest wired to the contract: the OpenAPI document's settings, its problem responses,
the headers it documents, the Blueprint class every resource is built with, and the document
itself, built once per process."""

import functools
from http import HTTPStatus

import flask_smorest
from apispec.ext.marshmallow import MarshmallowPlugin
from flask import Flask
from werkzeug.routing import BaseConverter

from app.http.parser import Parser
from app.http.problems import PROBLEM_JSON, ProblemSchema
from app.http.response_headers import API_VERSION

DESCRIPTION = """Profiles (named sets of resource caps) and blueprints (application templates).

Every response carries `API-Version: 1.0.0` and `X-Request-ID` (taken from the request when it is
1-128 characters of letters, digits and `._:-`, else generated). Every error is
`application/problem+json` with a `requestId`; validation errors name each field in `errors`.
An unsupported method on a path is a 405 with `Allow`; a body over 1 MiB is a 413; a request
line over 8,190 bytes is a 414.
"""

SETTINGS = {
    "API_TITLE": "Profiles and Blueprints",
    "API_SPEC_OPTIONS": {
        "info": {"description": DESCRIPTION},
        "security": [{"basicAuth": []}, {"bearerAuth": []}],
    },
    "API_VERSION": API_VERSION,
    "OPENAPI_VERSION": "3.1.0",
    "OPENAPI_URL_PREFIX": None,  # app/http/docs.py serves the document and the page
}


def header(description, schema=None):
    """A response header's documentation."""
    return {"description": description, "schema": schema or {"type": "string"}}


HEADERS = {
    "ETag": header("The version of the resource, for If-Match and If-None-Match."),
    "Location": header("The path of the new resource."),
    "Link": header('The next page, as `<...>; rel="next"`, when there is one.'),
    "Content-Disposition": header("`attachment` with a file name made of the blueprint's name."),
    "Cache-Control": header("`no-store`: the answer may hold secrets."),
    "Idempotent-Replayed": header(
        "`true` when this is the stored response of an earlier request with the same Idempotency-Key."
    ),
}
ERROR_HEADERS = {
    401: {"WWW-Authenticate": header("The schemes accepted: Basic and Bearer.")},
    409: {"Retry-After": header("Seconds to wait before retrying (a request in flight).", {"type": "integer"})},
    412: {"ETag": header("The current version: retry with it in If-Match once the change is seen.")},
    429: {"Retry-After": header("Seconds until attempts are accepted again.", {"type": "integer"})},
    503: {"Retry-After": header("Seconds to wait before retrying.", {"type": "integer"})},
}
UNEXPECTED = "UnexpectedError"


def headers(*names):
    """The documentation of these response headers, for `blp.response(headers=...)`."""
    return {name: HEADERS[name] for name in names}


def response_name(status):
    """The component name of the problem response for `status`: NotFound, TooManyRequests..."""
    return HTTPStatus(status).phrase.title().replace(" ", "").replace("-", "")


def schema_name(schema):
    """Profile, ProfilePatch (a partial load, as PATCH takes), ProfileQuery...; schemas of the
    libraries (flask-smorest's pagination metadata, which lists here do not use) are inlined,
    so the document names only what this service defines."""
    cls = schema if isinstance(schema, type) else type(schema)
    if not cls.__module__.startswith("app."):
        return None
    partial = not isinstance(schema, type) and schema.partial
    return cls.__name__.removesuffix("Schema") + ("Patch" if partial else "")


class InstanceId(BaseConverter):
    """An instance's id in a path: any segment but `upgrade`, which names the upgrade of many, so
    that /instances/upgrade is that operation's alone (its OPTIONS lists POST, not an item's GET)."""

    regex = "(?!upgrade$)[^/]+"


class Api(flask_smorest.Api):
    ERROR_SCHEMA = ProblemSchema
    DEFAULT_ERROR_RESPONSE_NAME = UNEXPECTED

    def __init__(self, app):
        plugin = MarshmallowPlugin(schema_name_resolver=schema_name)
        super().__init__(app, spec_kwargs={"marshmallow_plugin": plugin})
        self.register_converter(InstanceId, lambda converter: {"type": "string"})
        components = self.spec.components
        components.security_scheme("basicAuth", {"type": "http", "scheme": "basic"})
        components.security_scheme("bearerAuth", {"type": "http", "scheme": "bearer"})
        for status in HTTPStatus:
            if status >= 400:
                components.response(
                    response_name(status),
                    self._problem_response(status.phrase, ERROR_HEADERS.get(status)),
                    lazy=True,
                )
        components.response(UNEXPECTED, self._problem_response("An unexpected error (500)."), lazy=True)

    def _problem_response(self, description, response_headers=None):
        response = {"description": description, "content": {PROBLEM_JSON: {"schema": self.ERROR_SCHEMA}}}
        if response_headers:
            response["headers"] = response_headers
        return response


class Blueprint(flask_smorest.Blueprint):
    ARGUMENTS_PARSER = Parser()


def init_app(app):
    """What the API's routes need of the app they are registered in."""
    app.url_map.converters["instance_id"] = InstanceId


@functools.cache
def document(blueprints):
    """The OpenAPI document of these blueprints, built by flask-smorest in a Flask app of its own,
    once per process: it depends on the code alone, and building it costs more than the rest of
    making an app (docs/design.md)."""
    app = Flask(__name__)
    app.config.update(SETTINGS)
    init_app(app)
    api = Api(app)
    for blp in blueprints:
        api.register_blueprint(blp)
    return api.spec.to_dict()


# The error statuses of each kind of operation (401, 429 and 503 go with every one)
READ = (404,)
LIST = (404, 422)
CREATE = (400, 403, 409, 413, 415, 422)
CHANGE = (400, 403, 404, 412, 413, 415, 422)
DELETE = (403, 404, 412)


def problems(blp, *statuses):
    """Document the error statuses an operation may answer with (401, 429 and 503 always), in
    one decorator: each of flask-smorest's `alt_response` adds a wrapper every request passes."""
    return blp.doc(responses={str(status): response_name(status) for status in sorted({401, 429, 503, *statuses})})
