"""Who is calling, and may they: the one place where credentials and roles are checked. Views
declare the least role they need (`login_required(role=...)`); HTTP Basic and bearer tokens (the
service's own, or an identity provider's: access/oidc.py) work everywhere. Basic credentials
that verified recently are remembered in-process (an HMAC, never the password), checked against
the user's record on every request (docs/security.md, "Signing in, cheaply and across workers")."""

import hashlib
import hmac
import os
from functools import wraps

from flask import current_app, g
from flask.sessions import SessionInterface
from flask_httpauth import HTTPBasicAuth, HTTPTokenAuth, MultiAuth

from app import state
from app.access import login_throttle, oidc, request_quota
from app.access.tokens import store as tokens
from app.access.users import store as users
from app.errors import Forbidden, Unauthorized
from app.model.accounts import IMPLIED_ROLES
from app.storage.cache import TtlCache
from app.teams.storage import Roles

CHALLENGE = 'Basic realm="blueprints", Bearer realm="blueprints"'

basic = HTTPBasicAuth(realm="blueprints")
bearer = HTTPTokenAuth(scheme="Bearer", realm="blueprints")
multi = MultiAuth(basic, bearer)


def login_required(role, scheme=multi):
    """The one gate of every endpoint: credentials (401), then role (403), then the caller's
    request rate (429). `scheme` narrows the credentials accepted (the token endpoints)."""

    def decorate(view):
        @wraps(view)
        def limited(*args, **kwargs):
            request_quota.check(current_user()["username"])
            return view(*args, **kwargs)

        return scheme.login_required(role=role)(limited)

    return decorate


def _credentials_digest(username, password):
    return hmac.new(_CACHE_KEY, f"{username}\0{password}".encode("utf-8", "surrogatepass"), hashlib.sha256).digest()


_CACHE_KEY = os.urandom(32)  # per process: the cache never leaves it


def init_app(app):
    state.of(app).verified = TtlCache(size=1024)


@basic.verify_password
def _verify_password(username, password):
    """The user whose password this is; with PASSWORDS off, only ADMIN_USERNAME's is asked."""
    if not username or not (current_app.config["PASSWORDS"] or username == current_app.config["ADMIN_USERNAME"]):
        return None
    digest = _credentials_digest(username, password)
    remembered = state.of().verified.get(digest)
    if remembered is not None:
        user = users.cached(username)
        if user and user["passwordHash"] == remembered and not user["disabled"]:
            return caller(user)
        state.of().verified.drop(digest)
    user = login_throttle.verified(username, password)
    if user is None:
        return None
    state.of().verified.put(digest, user["passwordHash"], current_app.config["AUTH_CACHE_SECONDS"])
    return caller(user)


@bearer.verify_token
def _verify_token(token):
    """The service's own token, or with single sign-on a provider's access token (a JWT). A
    256-bit token cannot be guessed, nor a signature forged: a wrong one is a 401, never counted
    against anyone (a script's expired token would otherwise lock out every user behind its address)."""
    by_provider = oidc.enabled() and token.count(".") == 2
    user = oidc.user_of(token) if by_provider else tokens.user_of(token)
    g.signed_in_by_provider = by_provider
    return user and caller(user)


def signed_in_by_provider():
    """Whether this request's credentials are an identity provider's access token."""
    return bool(g.get("signed_in_by_provider")) and bearer.get_auth() is not None


def caller(user):
    """The signed-in `user` as a request's caller: their record, and their team roles read at
    first use (app/model/accounts.py decides by both)."""
    return {**user, "teams": Roles(user["username"])}


@basic.get_user_roles
@bearer.get_user_roles
def _roles(user):
    return IMPLIED_ROLES[user["role"]]


def _error(status):
    """flask-httpauth's refusal (401 or 403), raised as the service's own."""
    if status == 401:
        raise Unauthorized(headers={"WWW-Authenticate": CHALLENGE})
    raise Forbidden()


basic.error_handler(_error)
bearer.error_handler(_error)


def current_user():
    return multi.current_user()


class NoSessions(SessionInterface):
    """Credentials come with every request: no cookie session is opened (Flask then gives every
    request its read-only null session), so none is signed, read or written."""

    def open_session(self, app, request):
        return None


def current_token():
    """The bearer token of this request, if it was authenticated by one."""
    auth = bearer.get_auth()
    return auth.token if auth else None
