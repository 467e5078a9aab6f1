"""Headers on every response, errors included: `API-Version`, `X-Request-ID`, and
`X-Content-Type-Options: nosniff` (a body is only ever what its Content-Type says); a 204 has no
body, so no Content-Type either."""

from app.ops.logs import request_id

API_VERSION = "1.0.0"
# A page's headers (the web page's, Swagger UI's): its own files only, no inline script or style,
# never framed, no referrer sent on.
POLICY = "; ".join(
    (
        "default-src 'self'",
        "script-src 'self'",
        "style-src 'self'",
        "img-src 'self' data:",
        "connect-src 'self'",
        "object-src 'none'",
        "base-uri 'none'",
        "form-action 'self'",
        "frame-ancestors 'none'",
    )
)
PAGE = {"Content-Security-Policy": POLICY, "X-Frame-Options": "DENY", "Referrer-Policy": "no-referrer"}


def _stamp(response):
    response.headers["API-Version"] = API_VERSION
    response.headers["X-Request-ID"] = request_id()
    response.headers["X-Content-Type-Options"] = "nosniff"
    if response.status_code == 204:
        del response.headers["Content-Type"]
    return response


def init_app(app):
    app.after_request(_stamp)
