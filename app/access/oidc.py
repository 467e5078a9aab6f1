"""Single sign-on: an OpenID provider's access tokens (RFC 9068 JWTs) as bearer credentials.

With OIDC_ISSUER set, a bearer token that is a JWT is checked against the keys the issuer
publishes (its discovery document's `jwks_uri`, fetched again when a token names a key not seen,
at most once every KEYS_REFRESH seconds): its signature, by an asymmetric algorithm the key names
(never `none` or a shared secret); `iss`; `aud` (OIDC_AUDIENCE, else the client id; with several
audiences, `azp` the client id); `exp` and `nbf`; and that it is an access token, never an ID token
(`_an_access_token`). A token issued before the user's tokens were revoked is refused.
joserfc (Authlib's JOSE) does the cryptography.

A user is bound to the provider by (`iss`, `sub`) at their first sign-in, with the username the
claim OIDC_USERNAME_CLAIM gives, when no user has it (else a 401 until an admin links them:
`flask users link`). The claim OIDC_GROUPS_CLAIM sets their team roles through OIDC_TEAM_MAP
whenever a token brings groups not seen before (teams/storage.py `reconcile`)."""

import logging
import time
from urllib.parse import quote_plus

import httpx
from flask import current_app
from joserfc import jwt
from joserfc.errors import JoseError
from joserfc.jwk import KeySet

from app import state
from app.access.users import store as users
from app.model.accounts import TEAM_ROLES, USERNAME
from app.model.fields import DNS_LABEL
from app.teams.storage import store as teams

log = logging.getLogger(__name__)
ALGORITHMS = ["RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512", "EdDSA"]
KEYS_REFRESH = 10  # seconds between two fetches of the keys that a token naming an unknown one asks for
LEEWAY = 30  # seconds of clock skew allowed on exp and nbf
MOST_BYTES = 256 * 1024  # a discovery document or key set larger than this is refused
CLIENT_AUTH = ("client_secret_basic", "client_secret_post")  # how the client authenticates, the first OAuth's default


def team_map(text):
    """{group: (team, role)} of OIDC_TEAM_MAP (`group=team:role,...`); ValueError naming what is wrong."""
    found = {}
    for part in filter(None, (piece.strip() for piece in text.split(","))):
        group, equals, target = (piece.strip() for piece in part.partition("="))
        team, colon, role = target.partition(":")
        if not (group and equals and colon and role in TEAM_ROLES and DNS_LABEL.regex.fullmatch(team)):
            raise ValueError(
                f"OIDC_TEAM_MAP: {part[:60]!r} is not group=team:role (a role of {', '.join(TEAM_ROLES)})."
            )
        found[group] = (team, role)
    return found


def check_settings(config):
    """Stops start-up on single sign-on settings that cannot work (a ValueError saying which)."""
    team_map(config["OIDC_TEAM_MAP"])
    if config["OIDC_ISSUER"] and not config["OIDC_CLIENT_ID"]:
        raise ValueError("OIDC_ISSUER needs OIDC_CLIENT_ID: the audience its tokens are for.")
    if config["OIDC_CLIENT_AUTH"] not in CLIENT_AUTH:
        raise ValueError(f"OIDC_CLIENT_AUTH: one of {', '.join(CLIENT_AUTH)}.")


def enabled():
    return bool(current_app.config["OIDC_ISSUER"])


def audience():
    """What the provider's access tokens for this service name in `aud`."""
    return current_app.config["OIDC_AUDIENCE"] or current_app.config["OIDC_CLIENT_ID"]


def authorization_url(redirect_uri, state, challenge, nonce):
    """Where a browser signs in at the provider, to come back to `redirect_uri` with a code."""
    config = current_app.config
    query = {
        "client_id": config["OIDC_CLIENT_ID"],
        "response_type": "code",
        "redirect_uri": redirect_uri,
        "scope": "openid profile",
        "state": state,
        "code_challenge": challenge,
        "code_challenge_method": "S256",
        "nonce": nonce,
        **_resource(),
    }
    return str(httpx.URL(_discovery(config["OIDC_ISSUER"])["authorization_endpoint"], params=query))


def _resource():
    """The resource indicator (RFC 8707) the tokens are asked for: OIDC_AUDIENCE where it is set
    (an absolute URI); none where the audience is the client id, which names no resource."""
    audience = current_app.config["OIDC_AUDIENCE"]
    return {"resource": audience} if audience else {}


def exchange(code, verifier, redirect_uri):
    """The access token the provider gives for an authorization code (the service authenticates
    as its client), or None where it refuses."""
    config = current_app.config
    sent = {
        "grant_type": "authorization_code",
        "code": code,
        "code_verifier": verifier,
        "redirect_uri": redirect_uri,
        "client_id": config["OIDC_CLIENT_ID"],
        **_resource(),
    }
    auth = None
    if config["OIDC_CLIENT_SECRET"] and config["OIDC_CLIENT_AUTH"] == "client_secret_post":
        sent["client_secret"] = config["OIDC_CLIENT_SECRET"]
    elif config["OIDC_CLIENT_SECRET"]:  # RFC 6749 2.3.1: each form-encoded, then Basic
        auth = httpx.BasicAuth(quote_plus(config["OIDC_CLIENT_ID"]), quote_plus(config["OIDC_CLIENT_SECRET"]))
    try:
        endpoint = _discovery(config["OIDC_ISSUER"])["token_endpoint"]
        answer = httpx.post(endpoint, data=sent, auth=auth, timeout=10)
    except (httpx.HTTPError, ValueError) as exc:
        log.info("single sign-on: the code exchange failed: %s", type(exc).__name__)
        return None
    if answer.status_code != 200:
        log.info("single sign-on: the provider refused the code (%d)", answer.status_code)
        return None
    return answer.json().get("access_token")


def user_of(token):
    """The enabled user a provider's access token is for, bound or made now; None for a token
    that fails any check, or a user the service cannot bind without an admin."""
    claims = _claims(token)
    if claims is None:
        return None
    user = users.bound(claims["iss"], claims["sub"])
    if user is None:
        user = _first_sign_in(claims)
    if user is None or user["disabled"] or not _issued_since_revoked(claims, user):
        return None
    groups = claims.get(current_app.config["OIDC_GROUPS_CLAIM"])
    if isinstance(groups, list) and all(isinstance(group, str) for group in groups):
        _reconcile(user, sorted(set(groups)))
    return user


def _issued_since_revoked(claims, user):
    """Whether the provider issued the token (`iat`) after the user's tokens were last revoked
    (`DELETE /tokens?all=true`, a disabling, a new password): none issued before works again."""
    revoked = user.get("tokensRevokedAt")
    issued = claims.get("iat")
    if revoked is None:
        return True
    return isinstance(issued, (int, float)) and not isinstance(issued, bool) and issued > revoked.timestamp()


def _first_sign_in(claims):
    """A user made for a subject the service has not seen, named by the username claim."""
    username = claims.get(current_app.config["OIDC_USERNAME_CLAIM"])
    if not isinstance(username, str) or not USERNAME.regex.fullmatch(username):
        log.info("single sign-on refused: the username claim is not a username")
        return None
    made = users.create_bound(username, claims["iss"], claims["sub"])
    if made is None:
        log.info("single sign-on refused: %r is taken by another user; an admin may link it", username)
    return made


def _reconcile(user, groups):
    """Set the user's provider-given team roles from `groups`, when they changed since last seen."""
    if user.get("oidcGroups") == groups:
        return
    mapping = team_map(current_app.config["OIDC_TEAM_MAP"])
    wanted = {}
    for group in groups:
        if group in mapping:
            team, role = mapping[group]
            if TEAM_ROLES.index(role) >= TEAM_ROLES.index(wanted.get(team, "viewer")):
                wanted[team] = role
    for team in teams.reconcile(user["username"], wanted):
        log.warning("single sign-on: group mapped to team %r, which does not exist: skipped", team)
    users.set_groups(user["username"], groups)


def _claims(token):
    """The token's claims, if every check holds; else None (the reason logged, never the token)."""
    config = current_app.config
    issuer, client = config["OIDC_ISSUER"], config["OIDC_CLIENT_ID"]
    try:
        decoded = _decoded(token, issuer)
        claims, header = decoded.claims, decoded.header
        registry = jwt.JWTClaimsRegistry(
            leeway=LEEWAY, iss={"essential": True, "value": issuer}, exp={"essential": True}, sub={"essential": True}
        )
        registry.validate(claims)
    except (JoseError, ValueError, KeyError, httpx.HTTPError) as exc:
        log.info("single sign-on token refused: %s", type(exc).__name__)
        return None
    named = claims.get("aud")
    audiences = named if isinstance(named, list) else [named]
    if audience() not in audiences or (len(audiences) > 1 and claims.get("azp") != client):
        log.info("single sign-on token refused: not for this service's audience")
        return None
    if not _an_access_token(header, claims):
        log.info("single sign-on token refused: an ID token, or a token that does not show it is an access token")
        return None
    return claims


def _an_access_token(header, claims):
    """Whether a token is an access token: never one with an ID token's claims (`nonce`,
    `at_hash`, `c_hash`, Keycloak's `typ: ID`), whatever the audience; and, where the audience
    is the client id (which ID tokens name too), only one that shows it is one (RFC 9068's
    `typ: at+jwt`, or a `scope`, `scp` or `client_id` claim, which ID tokens do not carry)."""
    if {"nonce", "at_hash", "c_hash"} & set(claims) or str(claims.get("typ", "")).lower() == "id":
        return False
    if current_app.config["OIDC_AUDIENCE"]:
        return True
    typed = str(header.get("typ", "")).lower() in ("at+jwt", "application/at+jwt")
    return typed or bool({"scope", "scp", "client_id"} & set(claims))


def _decoded(token, issuer):
    """The token verified with the issuer's key it names (`kid`; the only one where the issuer
    publishes one), fetched again once for a key not known; an algorithm the key names (if it
    names one), asymmetric in any case."""

    def key_for(guest):
        header = guest.headers()
        held = _keys(issuer)
        key = held.named(header.get("kid"))
        if key is None and held.may_refresh():
            key = _keys(issuer, refresh=True).named(header.get("kid"))
        if key is None or (key.alg is not None and key.alg != header.get("alg")):
            raise ValueError("no key the issuer publishes signs with this")
        return key

    return jwt.decode(token, key_for, algorithms=ALGORITHMS)


class _Keys:
    """The issuer's published signing keys, as fetched at `at`."""

    def __init__(self, document):
        usable = [key for key in document.get("keys", []) if key.get("kty") in ("RSA", "EC", "OKP")]
        signing = [key for key in usable if key.get("use", "sig") == "sig"]
        self.keys = KeySet.import_key_set({"keys": signing}).keys if signing else []
        self.at = time.monotonic()

    def named(self, kid):
        if kid is None:
            return self.keys[0] if len(self.keys) == 1 else None
        return next((key for key in self.keys if key.kid == kid), None)

    def may_refresh(self):
        return time.monotonic() - self.at >= KEYS_REFRESH

    def tried(self):
        """The same keys, a fetch of them tried now."""
        self.at = time.monotonic()
        return self


def _keys(issuer, refresh=False):
    """This process's copy of the issuer's keys (fetched on first use, or again with `refresh`).
    A fetch that fails keeps the keys held (tokens they sign go on working while the provider is
    away) and is not tried again for KEYS_REFRESH seconds, so that tokens sent meanwhile fail at
    once instead of each holding a worker through a timeout."""
    held = state.of().oidc_keys
    if refresh or issuer not in held:
        try:
            held[issuer] = _Keys(_fetch(_discovery(issuer)["jwks_uri"]))
        except (httpx.HTTPError, ValueError, KeyError, JoseError):
            held[issuer] = held[issuer].tried() if issuer in held else _Keys({})
            raise
    return held[issuer]


def _discovery(issuer):
    return _fetch(f"{issuer.rstrip('/')}/.well-known/openid-configuration", issuer)


def _fetch(url, issuer=None):
    """A JSON document from the provider, bounded in size and time; a discovery document must
    name the issuer configured."""
    answer = httpx.get(url, timeout=5, follow_redirects=False)
    answer.raise_for_status()
    if len(answer.content) > MOST_BYTES:
        raise ValueError("the provider's document is too large")
    document = answer.json()
    if issuer is not None and document.get("issuer") != issuer:
        raise ValueError("the discovery document names another issuer")
    return document
