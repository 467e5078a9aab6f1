"""A real OpenID provider for the tests (node-oidc-provider, support/oracles/oidc_provider.mjs),
and a person signing in through it as a browser would: the authorization code flow with PKCE
through its sign-in and consent forms."""

import base64
import contextlib
import hashlib
import html
import json
import os
import re
import secrets
import shutil
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import parse_qs, urljoin, urlparse

import httpx

from support.ports import free_port

ORACLES = Path(__file__).resolve().parent / "oracles"
CLIENT_ID, CLIENT_SECRET, CLI_CLIENT_ID = "blueprints", "the-client-secret", "blueprints-cli"
AUDIENCE = "https://blueprints.test"  # a resource indicator is an absolute URI
REDIRECT_URI = "http://127.0.0.1:9/callback"  # never reached: the code is read from the redirect
FORM = re.compile(r'<form[^>]*action="([^"]+)"[^>]*>(.*?)</form>', re.S)
INPUT = re.compile(r"<input([^>]*)>", re.S)


@dataclass
class Provider:
    issuer: str
    accounts: Path
    client_auth: str = "client_secret_basic"

    def set_accounts(self, accounts):
        """Who is at the provider: {login: {"preferred_username", "groups"}}; read at every token."""
        self.accounts.write_text(json.dumps(accounts))

    def token(self, login, audience=AUDIENCE):
        """An access token (a JWT for `audience`) of `login`, signed in through the forms."""
        verifier = secrets.token_urlsafe(48)
        challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()
        query = {
            "client_id": CLIENT_ID,
            "response_type": "code",
            "redirect_uri": REDIRECT_URI,
            "scope": "openid profile",
            "code_challenge": challenge,
            "code_challenge_method": "S256",
            "resource": audience,
        }
        with httpx.Client(follow_redirects=False, timeout=10) as browser:
            location = _signed_in(browser, browser.get(f"{self.issuer}/auth", params=query), login)
            granted = browser.post(
                f"{self.issuer}/token",
                data={
                    "grant_type": "authorization_code",
                    "code": parse_qs(urlparse(location).query)["code"][0],
                    "redirect_uri": REDIRECT_URI,
                    "code_verifier": verifier,
                    "client_id": CLIENT_ID,
                    "resource": audience,
                    **({"client_secret": CLIENT_SECRET} if self.client_auth == "client_secret_post" else {}),
                },
                auth=httpx.BasicAuth(CLIENT_ID, CLIENT_SECRET) if self.client_auth != "client_secret_post" else None,
            )
        assert granted.status_code == 200, granted.text
        return granted.json()["access_token"]

    def sign_in_at(self, address, login):
        """What a person does with the address a program shows: signs in as `login` and consents;
        the address the provider sends the browser back to (the program's loopback one)."""
        with httpx.Client(follow_redirects=False, timeout=10) as browser:
            return _signed_in(browser, browser.get(address), login, back=lambda to: not to.startswith(self.issuer))

    def confirm_device(self, verification_uri, login):
        """What a person does with the address a device shows: opens it, confirms the code, signs
        in as `login` and consents."""
        with httpx.Client(follow_redirects=False, timeout=10) as browser:
            final = _signed_in(browser, browser.get(verification_uri), login)
        assert "Sign-in Success" in final, final[:500]


def _signed_in(browser, answer, login, back=lambda to: to.startswith(REDIRECT_URI)):
    """Follow `answer` as a browser would, submitting each form of the provider's (the device code,
    the sign-in as `login` with any password, the consent) until a redirect `back` to the client
    (its location) or a page without a form (its text)."""
    for _ in range(12):
        location = answer.headers.get("location")
        if location and back(urljoin(str(answer.url), location)):
            return location
        if location:
            answer = browser.get(urljoin(str(answer.url), location))
            continue
        form = FORM.search(answer.text)
        if form is None:
            return answer.text
        action, body = form.groups()
        fields = {
            html.unescape(name): html.unescape(value)
            for attributes in INPUT.findall(body)
            for name, value in [(_attribute(attributes, "name"), _attribute(attributes, "value"))]
            if name
        }
        if "login" in fields:
            fields.update(login=login, password="any")  # noqa: S106 (the development form takes any)
        answer = browser.post(urljoin(str(answer.url), html.unescape(action)), data=fields)
    raise AssertionError("the provider's forms never ended")


def _attribute(attributes, name):
    found = re.search(rf'\b{name}="([^"]*)"', attributes)
    return found.group(1) if found else ("" if name == "value" else None)


@contextlib.contextmanager
def provider(
    tmp_path, redirect_uri=REDIRECT_URI, port=None, device_flow=True, signing="RS256", client_auth=None, audience=None
):
    """The provider on loopback (`port`, else a free one) until the block ends; its client
    `CLIENT_ID` comes back to `redirect_uri` (the service's `/sso/callback` where a browser signs
    in) and authenticates with `client_auth` (default client_secret_basic); its tokens are signed
    with `signing` (RS256 or ES256), for `audience` (default: the resource asked for, AUDIENCE);
    without `device_flow`, it offers no device grant."""
    port, accounts = port or free_port(), tmp_path / "accounts.json"
    accounts.write_text("{}")
    args = [str(port), str(accounts), AUDIENCE, CLIENT_ID, CLIENT_SECRET, redirect_uri, CLI_CLIENT_ID]
    process = subprocess.Popen(
        [shutil.which("node"), str(ORACLES / "oidc_provider.mjs"), *args],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        env={
            **os.environ,
            "SIGNING_ALG": signing,
            "CLIENT_AUTH": client_auth or "client_secret_basic",
            **({"TOKEN_AUDIENCE": audience} if audience else {}),
            **({} if device_flow else {"NO_DEVICE_FLOW": "1"}),
        },
    )
    issuer = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                if httpx.get(f"{issuer}/.well-known/openid-configuration", timeout=1).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            if (ended := process.poll()) is not None or time.monotonic() >= deadline:
                process.kill()  # its error output is read whole once it has ended, never while it runs
                said = process.communicate(timeout=10)[1].decode(errors="replace")[-2000:]
                how = f"it exited with {ended}" if ended is not None else "it still ran after 60 s"
                raise AssertionError(f"the provider did not answer at {issuer} ({how}): {said}")
            time.sleep(0.05)
        yield Provider(issuer, accounts, client_auth or "client_secret_basic")
    finally:
        process.terminate()
        process.wait(10)
