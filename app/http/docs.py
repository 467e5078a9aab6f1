"""GET /openapi.json and GET /docs: the OpenAPI document, whose `servers` is the path prefix the
request came through (behind a reverse proxy), and Swagger UI from the assets of the installed
flask-swagger-ui package, never a CDN, so the page works on a closed network. The page is static
and names everything relatively, so it works under a prefix too; it holds no inline script, so
it carries the web page's strict policy (response_headers.PAGE)."""

from importlib.resources import files

from flask import Blueprint, current_app, request, send_from_directory

from app.http.response_headers import PAGE

_DIST = str(files("flask_swagger_ui") / "dist")
_PAGE = str(files("app.http") / "swagger")

blp = Blueprint("docs", __name__)


@blp.get("/openapi.json")
def openapi_json():
    document = current_app.extensions["openapi"].spec.to_dict()
    return {**document, "servers": [{"url": request.script_root or "/"}]}


@blp.get("/docs")
def page():
    return send_from_directory(_PAGE, "index.html", max_age=0)


@blp.get("/docs/page/<path:name>")
def script(name):
    return send_from_directory(_PAGE, name, max_age=0)


@blp.get("/docs/assets/<path:name>")
def asset(name):
    return send_from_directory(_DIST, name, max_age=86400)


@blp.after_request
def _protect(response):
    response.headers.update(PAGE)
    return response
