"""/sso: signing in through the identity provider. `GET /sso` tells a client (bpctl, the page)
what to ask the provider for, without credentials. The page signs in with the authorization code
flow and PKCE, the service being the confidential client that exchanges the code
(OIDC_CLIENT_SECRET): `/sso/login` sends the browser to the provider with a state, a nonce and a
code challenge kept in a signed cookie; `/sso/callback` checks the state, exchanges the code, checks
the access token as every one is checked (access/oidc.py) and issues a token of the service's,
handed to the page once through `POST /sso/session` (a signed cookie of a minute, for that path
alone, whose token is handed over once): never in a URL. The way back is built from PUBLIC_URL."""

import base64
import hashlib
import secrets

from flask import Blueprint, current_app, jsonify, redirect, request, url_for
from itsdangerous import BadSignature, URLSafeTimedSerializer

from app.access import oidc
from app.access.tokens import store as tokens
from app.errors import BadRequest, NotFound, Unauthorized
from app.model.fields import rfc3339

blp = Blueprint("sign_in", __name__, url_prefix="/sso")
STATE, HANDOFF = "sso_state", "sso_handoff"
STATE_SECONDS, HANDOFF_SECONDS = 600, 60


@blp.get("")
def sso():
    """What a client asks the provider for; all null without single sign-on."""
    config = current_app.config
    issuer = config["OIDC_ISSUER"]
    return jsonify(
        issuer=issuer,
        clientId=config["OIDC_CLIENT_ID"],
        cliClientId=issuer and (config["OIDC_CLI_CLIENT_ID"] or config["OIDC_CLIENT_ID"]),
        audience=issuer and oidc.audience(),
    )


@blp.get("/login")
def login():
    """To the provider's sign-in, with a fresh state and code challenge."""
    if not oidc.enabled():
        raise NotFound("This service has no single sign-on.")
    kept = {"state": secrets.token_urlsafe(24), "verifier": secrets.token_urlsafe(48)}
    challenge = base64.urlsafe_b64encode(hashlib.sha256(kept["verifier"].encode()).digest()).rstrip(b"=").decode()
    nonce = secrets.token_urlsafe(24)  # the ID token's: it makes one a token this service never takes
    response = redirect(oidc.authorization_url(_callback(), kept["state"], challenge, nonce))
    _set(response, STATE, _signer(STATE).dumps(kept), STATE_SECONDS, url_for("sign_in.callback"), "Lax")
    return response


@blp.get("/callback")
def callback():
    """Back from the provider: the code exchanged, the token checked, the page signed in."""
    kept = _cookie(
        STATE, STATE_SECONDS, BadRequest("This sign-in was not started here, or took too long: start again.")
    )
    if not secrets.compare_digest(str(request.args.get("state", "")), kept["state"]):
        raise BadRequest("This sign-in's state does not match: start it again.")
    user = None
    if "code" in request.args:
        user = oidc.user_of(oidc.exchange(request.args["code"], kept["verifier"], _callback()) or "")
    response = redirect(url_for("web.page", sso="done" if user else "refused"))
    response.delete_cookie(STATE, path=url_for("sign_in.callback"))
    if user is not None:
        token, expires = tokens.issue(user, handoff=True)
        handoff = _signer(HANDOFF).dumps({"token": token, "expiresAt": rfc3339(expires)})
        _set(response, HANDOFF, handoff, HANDOFF_SECONDS, url_for("sign_in.session"), "Strict")
    return response


@blp.post("/session")
def session():
    """The token the callback issued, once (the cookie goes with this answer)."""
    refused = Unauthorized("No sign-in to hand over: sign in again.")
    handed = _cookie(HANDOFF, HANDOFF_SECONDS, refused)
    if not tokens.handed_over(handed["token"]):  # the same cookie posted again
        raise refused
    response = jsonify(handed)
    response.headers["Cache-Control"] = "no-store"
    response.delete_cookie(HANDOFF, path=url_for("sign_in.session"))
    return response


def _callback():
    """Where the provider sends the browser back: under PUBLIC_URL, else under the address the
    request came to, where TRUSTED_PROXIES says the proxy that set it is to be believed; never
    under a Host header anyone could have sent."""
    public = current_app.config["PUBLIC_URL"]
    if public:
        return f"{public.rstrip('/')}{blp.url_prefix}/callback"
    if not current_app.config["TRUSTED_PROXIES"]:
        raise NotFound("The page's sign-in needs PUBLIC_URL: the address people reach the service at.")
    return url_for("sign_in.callback", _external=True)


def _cookie(name, seconds, refused):
    """What the signed cookie `name` holds, if it is ours and younger than `seconds`; else `refused`."""
    try:
        return _signer(name).loads(request.cookies.get(name, ""), max_age=seconds)
    except BadSignature:
        raise refused from None


def _signer(salt):
    return URLSafeTimedSerializer(current_app.config["SECRET_KEY"], salt=f"sso-{salt}")


def _set(response, name, value, seconds, path, same_site):
    response.set_cookie(
        name, value, max_age=seconds, path=path, secure=request.is_secure, httponly=True, samesite=same_site
    )
