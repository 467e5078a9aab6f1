"""An issuer the tests sign tokens as themselves (a discovery document and a key set served on a
loopback port, keys made here): what a real provider never issues (expired, an ID token, `none`,
a key it does not publish) is forged with it, while support/oidc.py's real provider issues the
tokens a person gets."""

import contextlib
import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from joserfc import jwt
from joserfc.jwk import KeySet, RSAKey


class Issuer:
    """Its URL, the keys it publishes (`published`) and signs with."""

    def __init__(self, url):
        self.url = url
        self.published = KeySet([RSAKey.generate_key(2048, parameters={"kid": "one", "alg": "RS256", "use": "sig"})])

    def rotate(self):
        """A new key, published in place of the old one."""
        kid = f"k{time.monotonic_ns()}"
        self.published = KeySet([RSAKey.generate_key(2048, parameters={"kid": kid, "alg": "RS256", "use": "sig"})])

    def token(self, key=None, header=None, **claims):
        """A token signed with `key` (default: the published one) of `claims` over an access token's
        defaults (for sub `dana`, the audience `blueprints`, valid for a minute)."""
        key = key or self.published.keys[0]
        now = int(time.time())
        body = {
            "iss": self.url,
            "sub": "dana",
            "preferred_username": "dana",
            "aud": "blueprints",
            "iat": now,
            "exp": now + 60,
        }
        body.update(claims)
        body = {name: value for name, value in body.items() if value is not None}
        header = {"alg": "RS256", "typ": "at+jwt", "kid": key.kid, **(header or {})}
        return jwt.encode(header, body, key, algorithms=[header["alg"]])

    def documents(self):
        return {
            "/.well-known/openid-configuration": {
                "issuer": self.url,
                "jwks_uri": f"{self.url}/jwks",
                "authorization_endpoint": f"{self.url}/auth",
            },
            "/jwks": self.published.as_dict(private=False),
        }


@contextlib.contextmanager
def serving():
    """An Issuer on a free loopback port until the block ends."""
    holder = {}

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self):  # noqa: N802 (http.server's name)
            document = holder["issuer"].documents().get(self.path)
            body = json.dumps(document).encode()
            self.send_response(200 if document else 404)
            self.send_header("Content-Type", "application/json")
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    holder["issuer"] = Issuer(f"http://127.0.0.1:{server.server_port}")
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        yield holder["issuer"]
    finally:
        server.shutdown()
        server.server_close()
