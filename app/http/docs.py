"""GET /openapi.json and GET /docs: the OpenAPI document, whose `servers` is the path prefix the
request came through (behind a reverse proxy), and Swagger UI from the assets of the installed
flask-swagger-ui package, never a CDN, so the page works on a closed network. The page is static
and names everything relatively, so it works under a prefix too; it holds no inline script, so
it carries the web page's strict policy (response_headers.PAGE)."""

from importlib.resources import files

from flask import Blueprint, request, send_from_directory

from app.http import openapi
from app.http.response_headers import PAGE

_DIST = str(files("flask_swagger_ui") / "dist")
_PAGE = str(files("app.http") / "swagger")


def blueprint(resources):
    """The routes, serving the document of the `resources` blueprints."""
    blp = Blueprint("docs", __name__)

    @blp.get("/openapi.json")
    def openapi_json():
        return {**openapi.document(resources), "servers": [{"url": request.script_root or "/"}]}

    blp.add_url_rule("/docs", "page", _page)
    blp.add_url_rule("/docs/page/<path:name>", "script", _script)
    blp.add_url_rule("/docs/assets/<path:name>", "asset", _asset)
    blp.after_request(_protect)
    return blp


def _page():
    return send_from_directory(_PAGE, "index.html", max_age=0)


def _script(name):
    return send_from_directory(_PAGE, name, max_age=0)


def _asset(name):
    return send_from_directory(_DIST, name, max_age=86400)


def _protect(response):
    response.headers.update(PAGE)
    return response
