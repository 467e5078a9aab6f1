"""Signing in through the service's identity provider with the OAuth 2.0 device authorization
grant (RFC 8628): bpctl shows an address and a code, the person confirms them in any browser, and
bpctl receives the provider's access token, which the service exchanges for a token of its own.
Where the provider has no device grant, a loopback redirect (RFC 8252): bpctl listens on
127.0.0.1 for the browser's return, with PKCE."""

import base64
import hashlib
import secrets
import time
from http.server import BaseHTTPRequestHandler, HTTPServer
from urllib.parse import parse_qs, urlparse

import httpx

from bpctl.common import note
from bpctl.errors import Refused, Unreachable

DEVICE_GRANT = "urn:ietf:params:oauth:grant-type:device_code"
TIMEOUT = httpx.Timeout(30.0, connect=10.0)
LOOPBACK_SECONDS = 300  # how long bpctl waits for the browser to come back


def provider_token(url):
    """An access token of the provider the service at `url` signs in with, once the person has
    confirmed the code shown (on standard error) in a browser."""
    with httpx.Client(timeout=TIMEOUT, follow_redirects=False) as http:
        config = _json(http.get(f"{url}/sso"), url)
        if not config.get("issuer"):
            raise Refused(f"{url} has no single sign-on: sign in with a password.")
        discovery = _json(
            http.get(f"{config['issuer'].rstrip('/')}/.well-known/openid-configuration"), config["issuer"]
        )
        if "device_authorization_endpoint" not in discovery:
            return _through_a_loopback_redirect(http, config, discovery)
        asked = {"client_id": config["cliClientId"], "scope": "openid profile", "resource": config["audience"]}
        started = _json(http.post(discovery["device_authorization_endpoint"], data=asked), config["issuer"])
        address = started.get("verification_uri_complete") or started["verification_uri"]
        note(f"To sign in, open {address} and confirm the code {started['user_code']}.")
        interval, deadline = started.get("interval", 5), time.monotonic() + started.get("expires_in", 600)
        while time.monotonic() < deadline:
            time.sleep(interval)
            polled = http.post(
                discovery["token_endpoint"],
                data={
                    "grant_type": DEVICE_GRANT,
                    "device_code": started["device_code"],
                    "client_id": asked["client_id"],
                },
            )
            answer = polled.json() if polled.headers.get("content-type", "").startswith("application/json") else {}
            if polled.status_code == 200 and "access_token" in answer:
                return answer["access_token"]
            if answer.get("error") == "slow_down":
                interval += 5
            elif answer.get("error") != "authorization_pending":
                raise Refused(f"the identity provider refused the sign-in: {answer.get('error', polled.status_code)}.")
    raise Refused("the code was not confirmed in time: run `bpctl login --sso` again.")


def _json(response, where):
    if response.status_code != 200:
        raise Unreachable(f"{where} answered {response.status_code} where single sign-on expected a document.")
    return response.json()


def _through_a_loopback_redirect(http, config, discovery):
    """The access token of an authorization code the browser brings back to a port of this
    machine's loopback address that bpctl listens on for the while (the code bound to a PKCE
    verifier, the return to a state)."""
    state, verifier = secrets.token_urlsafe(24), secrets.token_urlsafe(48)
    challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()
    returned = {}

    class Return(BaseHTTPRequestHandler):
        def do_GET(self):  # noqa: N802 (http.server's name)
            query = parse_qs(urlparse(self.path).query)
            if urlparse(self.path).path == "/callback" and query.get("state") == [state]:
                returned.update({key: values[0] for key, values in query.items()})
            self.send_response(200)
            self.send_header("Content-Type", "text/plain; charset=utf-8")
            self.end_headers()
            self.wfile.write(b"Signed in: you may close this window and go back to bpctl.\n")

        def log_message(self, *args):
            pass

    with HTTPServer(("127.0.0.1", 0), Return) as server:
        redirect_uri = f"http://127.0.0.1:{server.server_port}/callback"
        query = {
            "client_id": config["cliClientId"],
            "response_type": "code",
            "redirect_uri": redirect_uri,
            "scope": "openid profile",
            "state": state,
            "code_challenge": challenge,
            "code_challenge_method": "S256",
            "resource": config["audience"],
        }
        note(f"To sign in, open {httpx.URL(discovery['authorization_endpoint'], params=query)}")
        server.timeout, deadline = 5, time.monotonic() + LOOPBACK_SECONDS
        while "code" not in returned and "error" not in returned and time.monotonic() < deadline:
            server.handle_request()
    if "code" not in returned:
        raise Refused(f"the identity provider did not sign you in: {returned.get('error', 'no answer in time')}.")
    sent = {
        "grant_type": "authorization_code",
        "code": returned["code"],
        "code_verifier": verifier,
        "redirect_uri": redirect_uri,
        "client_id": config["cliClientId"],
        "resource": config["audience"],
    }
    granted = http.post(discovery["token_endpoint"], data=sent)
    if granted.status_code != 200:
        raise Refused(f"the identity provider refused the code: {granted.status_code}.")
    return granted.json()["access_token"]
