"""Signing in through the service's identity provider with the OAuth 2.0 device authorization
grant (RFC 8628): bpctl shows an address and a code, the person confirms them in any browser, and
bpctl receives the provider's access token, which the service exchanges for a token of its own."""

import time

import httpx

from bpctl.common import note
from bpctl.errors import Refused, Unreachable

DEVICE_GRANT = "urn:ietf:params:oauth:grant-type:device_code"
TIMEOUT = httpx.Timeout(30.0, connect=10.0)


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
            raise Refused("the identity provider offers no device sign-in.")
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
