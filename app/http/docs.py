"""GET /docs: Swagger UI from the assets of the installed flask-swagger-ui package, never a CDN,
so the page works on a closed network. flask-smorest renders the page; this serves its files."""

from importlib.resources import files

from flask import Blueprint, send_from_directory

ASSETS_URL = "/docs/assets/"
_DIST = str(files("flask_swagger_ui") / "dist")

blp = Blueprint("docs_assets", __name__)


@blp.route(ASSETS_URL + "<path:name>")
def asset(name):
    return send_from_directory(_DIST, name, max_age=86400)


SETTINGS = {
    "OPENAPI_SWAGGER_UI_PATH": "docs",
    "OPENAPI_SWAGGER_UI_URL": ASSETS_URL,
    # No call to the public validator badge service; try-it-out on by default.
    "OPENAPI_SWAGGER_UI_CONFIG": {"validatorUrl": None, "tryItOutEnabled": True, "deepLinking": True},
}
