"""GET /: the catalog's web page, a client of the public API like any script.

The page is the files of this package's `static/` (an HTML page, a style sheet, an icon, and a
script module per view): no framework, nothing vendored, nothing from another host, so it loads
on a closed network and its whole weight is what is here. `package.json` and
`eslint.config.mjs` beside it are the scripts' linter (`make lint`), never served. It needs no
credentials to load; it signs in with POST /tokens and calls the API with the bearer token. Its
responses forbid inline scripts and styles, framing and type sniffing (response_headers.PAGE),
and every text the page shows goes into the DOM as text, never as markup (static/dom.js, `el`).
"""

from flask import Blueprint, send_from_directory

from app.http.response_headers import PAGE

STATIC = "static"
ASSETS_URL = "/web/"
blp = Blueprint("web", __name__, static_folder=None)


@blp.get("/")
def page():
    """The page is small and changes with each release: revalidated on every visit."""
    return send_from_directory(blp.root_path + "/" + STATIC, "index.html", max_age=0)


@blp.get(ASSETS_URL + "<path:name>")
def asset(name):
    return send_from_directory(blp.root_path + "/" + STATIC, name, max_age=0)


@blp.after_request
def _protect(response):
    response.headers.update(PAGE)
    return response
