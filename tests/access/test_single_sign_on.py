"""Single sign-on: a real OpenID provider (node-oidc-provider, started here) signs people in; its
access tokens are the API's bearer credentials, a first sign-in makes the user, and its groups set
their teams at each sign-in that brings new ones. What a provider never issues is forged by an
issuer of the tests' own (support/issuer.py), and each is a 401."""

import base64
import hashlib
import hmac
import json
import re
import subprocess
import time

import httpx
import pytest
from click.testing import CliRunner
from joserfc.jwk import RSAKey

from app import state
from app.access import oidc
from app.cli import users_cli
from support import issuer as issuers
from support import oidc as provider
from support.apps import make_app, serving
from support.bpctl import PROGRAM, Bpctl
from support.http import FlaskClient, assert_problem, bearer

TEAM_MAP = "payments=pay:member,payments-leads=pay:maintainer,ghosts=nowhere:viewer"


@pytest.fixture(scope="module")
def op(tmp_path_factory):
    with provider.provider(tmp_path_factory.mktemp("op")) as started:
        yield started


def signed_on(backend, issuer, client=provider.CLIENT_ID, audience=provider.AUDIENCE, mongo_uri=None, **more):
    return make_app(
        backend,
        mongo_uri,
        OIDC_ISSUER=issuer,
        OIDC_CLIENT_ID=client,
        OIDC_AUDIENCE=audience,
        OIDC_TEAM_MAP=TEAM_MAP,
        **{"PUBLIC_URL": "http://localhost", **more},
    )


@pytest.fixture(params=["mongomock", "socket"])
def app(request, op):
    """The app signing in through the provider, on mongomock and on the embedded database."""
    if request.param == "mongomock":
        yield signed_on("mongomock", op.issuer)
        return
    made = signed_on("socket", op.issuer, mongo_uri=request.getfixturevalue("mongo_server").uri)
    yield made
    state.of(made).database.client.drop_database(made.config["MONGO_DB"])


def test_a_first_sign_in_makes_a_member_and_the_groups_set_the_teams_at_each_sign_in(api, op, caplog):
    assert api.post("/teams", json={"name": "pay"}, user="admin").status == 201
    op.set_accounts({"dana": {"groups": ["payments", "ghosts"]}})
    token = op.token("dana")
    me = api.get("/users/me", headers=bearer(token))
    assert me.status == 200 and (me.json["username"], me.json["role"]) == ("dana", "member")
    [team] = api.get("/teams", headers=bearer(token)).json["items"]
    assert (team["name"], team["role"]) == ("pay", "member")
    assert {"username": "dana", "role": "member", "origin": "sso"} in team["members"]
    assert "'nowhere', which does not exist" in caplog.text  # mapped, but no such team: skipped
    made = api.post("/profiles", json={"name": "p", "owner": "team:pay"}, headers=bearer(token))
    assert made.status == 201  # a member of it, by the provider's word
    op.set_accounts({"dana": {"groups": ["payments-leads"]}})
    lead = op.token("dana")
    assert api.get("/teams/pay", headers=bearer(lead)).json["role"] == "maintainer"  # at the next sign-in
    assert api.put("/teams/pay/members/bob", json={"role": "viewer"}, headers=bearer(lead)).status == 200
    op.set_accounts({"dana": {"groups": []}})
    gone = op.token("dana")
    assert api.get("/teams", headers=bearer(gone)).json["items"] == []
    assert_problem(api.get(f"/profiles/{made.json['id']}", headers=bearer(gone)), 404)
    roles = {m["username"]: (m["role"], m["origin"]) for m in api.get("/teams/pay", user="admin").json["members"]}
    assert roles == {"admin": ("maintainer", "manual"), "bob": ("viewer", "manual")}  # manual ones stay
    assert api.get(f"/profiles/{made.json['id']}", user="bob").status == 200  # the team keeps what it owns


def test_a_provider_token_mints_the_services_token_and_passwords_can_be_off(api, app, op):
    op.set_accounts({"erin": {}})
    minted = api.post("/tokens", headers=bearer(op.token("erin")))
    assert minted.status == 201
    assert api.get("/users/me", headers=bearer(minted.json["token"])).json["username"] == "erin"
    assert_problem(api.post("/tokens", headers=bearer(minted.json["token"])), 401)  # a token makes no other
    assert_problem(api.get("/users/me", user="erin", password=""), 401)  # no password of hers
    app.config.update(PASSWORDS=False)
    assert_problem(api.get("/users/me", user="alice"), 401)
    assert api.get("/users/me", headers=bearer(op.token("erin"))).status == 200


def test_a_username_taken_by_another_is_refused_until_an_admin_links_them(api, app, op):
    op.set_accounts({"mallory": {"preferred_username": "alice"}, "weird": {"preferred_username": "no spaces!"}})
    assert_problem(api.get("/users/me", headers=bearer(op.token("mallory"))), 401)  # alice is a local user
    assert_problem(api.get("/users/me", headers=bearer(op.token("weird"))), 401)
    linked = CliRunner().invoke(users_cli, ["link", "alice", "mallory"], obj=_script_info(app))
    assert linked.exit_code == 0, linked.output
    assert api.get("/users/me", headers=bearer(op.token("mallory"))).json["username"] == "alice"
    runner = CliRunner().invoke(users_cli, ["disable", "alice"], obj=_script_info(app))
    assert runner.exit_code == 0
    assert_problem(api.get("/users/me", headers=bearer(op.token("mallory"))), 401)  # disabled


def test_a_token_for_another_audience_is_refused(api, op):
    op.set_accounts({"dana": {}})
    assert_problem(api.get("/users/me", headers=bearer(op.token("dana", audience="https://other.test"))), 401)


def _script_info(app):
    from flask.cli import ScriptInfo

    return ScriptInfo(create_app=lambda: app)


# What a provider never issues, forged with the tests' own issuer


@pytest.fixture
def forger():
    with issuers.serving() as issuer:
        yield issuer


@pytest.fixture
def forged_api(forger):
    return FlaskClient(signed_on("mongomock", forger.url, client="blueprints", audience=None))


def _unsigned(header, claims, signature=b""):
    def part(value):
        return base64.urlsafe_b64encode(json.dumps(value).encode()).rstrip(b"=").decode()

    return f"{part(header)}.{part(claims)}.{base64.urlsafe_b64encode(signature).rstrip(b'=').decode()}"


def test_the_tests_own_issuer_signs_a_token_the_service_takes(forged_api, forger):
    assert forged_api.get("/users/me", headers=bearer(forger.token())).json["username"] == "dana"


@pytest.mark.parametrize(
    "why",
    [
        "another issuer",
        "another audience",
        "expired",
        "not yet valid",
        "no subject",
        "an ID token",
        "several audiences without azp",
        "a key not published",
        "alg none",
        "the public key as an HMAC secret",
        "another algorithm than the key names",
        "tampered",
    ],
)
def test_every_token_the_provider_did_not_issue_as_an_access_token_for_us_is_a_401(forged_api, forger, why):
    now = int(time.time())
    published = forger.published.keys[0]
    stranger = RSAKey.generate_key(2048, parameters={"kid": published.kid})
    unnamed = RSAKey.import_key({k: v for k, v in published.as_dict(private=True).items() if k != "alg"})  # its key
    claims = {"iss": forger.url, "sub": "dana", "aud": "blueprints", "exp": now + 60}
    token = {
        "another issuer": lambda: forger.token(iss="http://127.0.0.1:1"),
        "another audience": lambda: forger.token(aud="someone-else"),
        "expired": lambda: forger.token(exp=now - 120),
        "not yet valid": lambda: forger.token(nbf=now + 600),
        "no subject": lambda: forger.token(sub=None),
        "an ID token": lambda: forger.token(header={"typ": "JWT"}, nonce="n-0S6_WzA2Mj"),
        "several audiences without azp": lambda: forger.token(aud=["blueprints", "other"]),
        "a key not published": lambda: forger.token(key=stranger),
        "alg none": lambda: _unsigned({"alg": "none", "kid": published.kid}, claims),
        "the public key as an HMAC secret": lambda: _hmac_with_public_key(published, claims),
        "another algorithm than the key names": lambda: forger.token(key=unnamed, header={"alg": "PS256"}),
        "tampered": lambda: _tampered(forger.token()),
    }[why]()
    assert_problem(forged_api.get("/users/me", headers=bearer(token)), 401)
    assert forged_api.get("/users/me", headers=bearer(forger.token())).status == 200  # and the real one passes


def _hmac_with_public_key(key, claims):
    """A token whose HS256 signature takes the published public key as its secret (algorithm confusion)."""
    head_and_body = _unsigned({"alg": "HS256", "kid": key.kid, "typ": "at+jwt"}, claims).rsplit(".", 1)[0]
    signature = hmac.new(key.as_pem(private=False), head_and_body.encode(), hashlib.sha256).digest()
    return f"{head_and_body}.{base64.urlsafe_b64encode(signature).rstrip(b'=').decode()}"


def _tampered(token):
    head, body, signature = token.split(".")
    claims = json.loads(base64.urlsafe_b64decode(body + "=" * (-len(body) % 4)))
    return (
        _unsigned(
            json.loads(base64.urlsafe_b64decode(head + "=" * (-len(head) % 4))), {**claims, "sub": "admin"}
        ).rsplit(".", 1)[0]
        + "."
        + signature
    )


def test_a_rotated_key_is_fetched_again_when_a_token_names_it(forged_api, forger, monkeypatch):
    assert forged_api.get("/users/me", headers=bearer(forger.token())).status == 200
    forger.rotate()
    monkeypatch.setattr(oidc, "KEYS_REFRESH", 3600)
    assert_problem(forged_api.get("/users/me", headers=bearer(forger.token())), 401)  # not fetched again so soon
    monkeypatch.setattr(oidc, "KEYS_REFRESH", 0)
    assert forged_api.get("/users/me", headers=bearer(forger.token())).status == 200


def test_the_team_map_is_read_at_start_up():
    assert oidc.team_map(" a=pay:member , b = ops:viewer ") == {"a": ("pay", "member"), "b": ("ops", "viewer")}
    for wrong in ("a=pay", "a=pay:owner", "=pay:member", "a=Pay Team:member"):
        with pytest.raises(ValueError, match="OIDC_TEAM_MAP"):
            oidc.team_map(wrong)
    with pytest.raises(ValueError, match="OIDC_CLIENT_ID"):
        make_app("mongomock", OIDC_ISSUER="https://id.example.com")


def test_bpctl_signs_in_through_the_device_flow(op, tmp_path):
    app = signed_on("mongomock", op.issuer, OIDC_CLI_CLIENT_ID=provider.CLI_CLIENT_ID)
    op.set_accounts({"dana": {"groups": []}})
    with serving(app) as port:
        bpctl = Bpctl(f"http://127.0.0.1:{port}", tmp_path / "config")
        login = subprocess.Popen(
            [PROGRAM, "login", "--sso"], env=bpctl.environ(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
        )
        shown = login.stderr.readline()
        address = re.search(r"open (\S+) and confirm the code", shown)
        assert address, shown
        op.confirm_device(address.group(1), "dana")  # in a browser, signed in at the provider
        _, said = login.communicate(timeout=60)
        assert login.returncode == 0 and "as dana" in said, said
        assert bpctl("profile", "ls").code == 0  # the kept token is the service's own
        assert json.loads(FlaskClient(app).get("/sso").body) == {
            "issuer": op.issuer,
            "clientId": provider.CLIENT_ID,
            "cliClientId": provider.CLI_CLIENT_ID,
            "audience": provider.AUDIENCE,
        }
    with serving(make_app("mongomock")) as port:
        refused = Bpctl(f"http://127.0.0.1:{port}", tmp_path / "other").run("login", "--sso")
        assert refused.returncode == 3 and b"has no single sign-on" in refused.stderr


def test_the_pages_sign_in_refuses_what_it_did_not_start(app, op):
    client = app.test_client()
    assert client.get("/sso/callback?code=x&state=y").status_code == 400  # no state of ours
    started = client.get("/sso/login")
    assert started.status_code == 302 and started.headers["Location"].startswith(f"{op.issuer}/auth?")
    assert "code_challenge_method=S256" in started.headers["Location"]
    assert client.get("/sso/callback?code=x&state=another").status_code == 400  # not the state sent
    state = dict(pair.split("=") for pair in started.headers["Location"].split("?")[1].split("&"))["state"]
    refused = client.get(f"/sso/callback?error=access_denied&state={state}")
    assert refused.status_code == 302 and refused.headers["Location"].endswith("/?sso=refused")
    assert client.post("/sso/session").status_code == 401  # nothing handed over
    assert make_app("mongomock").test_client().get("/sso/login").status_code == 404


def test_bpctl_signs_in_through_a_loopback_redirect_where_the_provider_has_no_device_grant(tmp_path):
    with provider.provider(tmp_path, device_flow=False) as op:
        op.set_accounts({"dana": {}})
        app = signed_on("mongomock", op.issuer, OIDC_CLI_CLIENT_ID=provider.CLI_CLIENT_ID)
        with serving(app) as port:
            bpctl = Bpctl(f"http://127.0.0.1:{port}", tmp_path / "config")
            login = subprocess.Popen(
                [PROGRAM, "login", "--sso"],
                env=bpctl.environ(),
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
            )
            shown = login.stderr.readline()
            address = re.search(r"open (\S+)", shown)
            assert address and "code_challenge_method=S256" in shown, shown
            back = op.sign_in_at(address.group(1), "dana")  # in a browser, signed in at the provider
            assert back.startswith("http://127.0.0.1:") and "/callback?code=" in back
            assert "you may close this window" in httpx.get(back).text  # the browser comes back to bpctl
            _, said = login.communicate(timeout=60)
            assert login.returncode == 0 and "as dana" in said, said
            assert bpctl("profile", "ls").code == 0


def test_groups_add_no_team_past_the_twenty_a_user_may_be_in(forger, caplog):
    many = ",".join(f"g{n}=t{n}:viewer" for n in range(21))
    api = FlaskClient(make_app("mongomock", OIDC_ISSUER=forger.url, OIDC_CLIENT_ID="blueprints", OIDC_TEAM_MAP=many))
    for n in range(21):
        assert api.post("/teams", json={"name": f"t{n}"}, user="admin").status == 201
    token = forger.token(groups=[f"g{n}" for n in range(21)])
    assert len(api.get("/teams", headers=bearer(token)).json["items"]) == 20
    assert "in 20 teams already; not added to 't9'" in caplog.text  # the names in order: t9 comes last


def test_while_the_provider_is_away_its_tokens_are_refused_at_once(forger, monkeypatch):
    away = "http://127.0.0.1:9"  # nothing listens there
    api = FlaskClient(make_app("mongomock", OIDC_ISSUER=away, OIDC_CLIENT_ID="blueprints"))
    asked = []
    real_get = httpx.get
    monkeypatch.setattr(httpx, "get", lambda url, **kw: asked.append(url) or real_get(url, **kw))
    token = forger.token(iss=away)
    assert_problem(api.get("/users/me", headers=bearer(token)), 401)
    assert_problem(api.get("/users/me", headers=bearer(token)), 401)
    assert asked == [f"{away}/.well-known/openid-configuration"]  # asked once, not at every token


# Single sign-on that survives its provider, and tells ID tokens from access tokens


@pytest.mark.parametrize("audience", [None, "https://blueprints.test"])
@pytest.mark.parametrize(
    "claims",
    [{"nonce": "n"}, {"at_hash": "x"}, {"c_hash": "x"}, {"typ": "ID"}],
    ids=["nonce", "at_hash", "c_hash", "typ"],
)
def test_a_token_with_an_id_tokens_claims_is_never_a_bearer_credential(forger, audience, claims):
    api = FlaskClient(signed_on("mongomock", forger.url, client="blueprints", audience=audience))
    aud = audience or "blueprints"
    assert api.get("/users/me", headers=bearer(forger.token(aud=aud))).status == 200
    assert_problem(api.get("/users/me", headers=bearer(forger.token(aud=aud, **claims))), 401)
    minted = api.post("/tokens", headers=bearer(forger.token(aud=aud, **claims)))
    assert_problem(minted, 401)


def test_where_the_audience_is_the_client_id_only_a_token_that_shows_it_is_an_access_token_passes(forged_api, forger):
    plain = {"header": {"typ": "JWT"}}  # an ID token of a provider that puts no nonce in it looks so
    assert_problem(forged_api.get("/users/me", headers=bearer(forger.token(**plain))), 401)
    for shown in ({"scope": "openid"}, {"scp": ["read"]}, {"client_id": "blueprints"}):
        assert forged_api.get("/users/me", headers=bearer(forger.token(**plain, **shown))).status == 200


def test_with_the_provider_away_the_keys_held_keep_working_and_an_unknown_key_fails_alone(
    forged_api, forger, monkeypatch
):
    assert forged_api.get("/users/me", headers=bearer(forger.token())).status == 200  # the keys fetched
    monkeypatch.setattr(oidc, "KEYS_REFRESH", 0)

    def away(url, **kwargs):
        raise httpx.ConnectError("the provider is away")

    monkeypatch.setattr(httpx, "get", away)
    stranger = RSAKey.generate_key(2048, parameters={"kid": "not-published"})
    assert_problem(forged_api.get("/users/me", headers=bearer(forger.token(key=stranger))), 401)
    for _ in range(4):  # every worker's signed-in users stay signed in
        assert forged_api.get("/users/me", headers=bearer(forger.token())).status == 200


def test_revoking_every_token_and_disabling_reach_the_providers_tokens(forged_api, forger):
    earlier = forger.token(iat=int(time.time()) - 5)
    assert forged_api.get("/users/me", headers=bearer(earlier)).status == 200
    assert forged_api.delete("/tokens?all=true", headers=bearer(earlier)).status == 204
    assert_problem(forged_api.get("/users/me", headers=bearer(earlier)), 401)
    assert_problem(forged_api.get("/users/me", headers=bearer(forger.token(iat=None))), 401)  # no iat: no telling
    later = forger.token(iat=int(time.time()) + 1)
    assert forged_api.get("/users/me", headers=bearer(later)).status == 200
    erin = forger.token(sub="erin", preferred_username="erin", iat=int(time.time()) - 5)
    assert forged_api.get("/users/me", headers=bearer(erin)).status == 200
    runner = forged_api.app.test_cli_runner()
    assert runner.invoke(args=["users", "disable", "erin"]).exit_code == 0
    assert runner.invoke(args=["users", "enable", "erin"]).exit_code == 0
    assert_problem(forged_api.get("/users/me", headers=bearer(erin)), 401)  # enabling brings none back


def test_the_way_back_from_the_provider_is_built_from_public_url_never_from_the_host_header(forger):
    app = signed_on("mongomock", forger.url, client="blueprints", PUBLIC_URL="https://bp.example.com/bp")
    client = app.test_client()
    started = client.get("/sso/login", headers={"Host": "evil.example:8443"})
    assert started.status_code == 302
    location = started.headers["Location"]
    assert "redirect_uri=https%3A%2F%2Fbp.example.com%2Fbp%2Fsso%2Fcallback" in location and "evil" not in location
    assert "nonce=" in location
    unset = signed_on("mongomock", forger.url, client="blueprints", PUBLIC_URL=None).test_client()
    assert unset.get("/sso/login", headers={"Host": "evil.example:8443"}).status_code == 404


def test_the_hand_off_is_taken_once(forger):
    from app.access.tokens import store as tokens
    from app.access.users import store as users
    from app.web import sign_in

    app = signed_on("mongomock", forger.url, client="blueprints")
    client = app.test_client()
    with app.app_context():
        token, expires = tokens.issue(users.find("alice"), handoff=True)
        cookie = sign_in._signer(sign_in.HANDOFF).dumps({"token": token, "expiresAt": "x"})
    for expected in (200, 401):  # the same cookie, posted twice within its minute
        client.set_cookie(sign_in.HANDOFF, cookie, path="/sso/session")
        assert client.post("/sso/session").status_code == expected


# The real provider in two configurations, the page's whole sign-in and the provider stopped


def _signed_in_through_the_page(app, op, port, login):
    """The service's token after a person signed in through /sso/login, the provider's forms and
    /sso/callback (the code exchanged by the service as its client), handed over once."""
    with httpx.Client(base_url=f"http://127.0.0.1:{port}", follow_redirects=False, timeout=10) as page:
        started = page.get("/sso/login")
        assert started.status_code == 302, started.text
        back = op.sign_in_at(started.headers["location"], login)
        called = page.get(back.replace(f"http://127.0.0.1:{port}", ""))
        assert called.status_code == 302 and called.headers["location"].endswith("/?sso=done"), called.text
        handed = page.post("/sso/session")
        assert handed.status_code == 200, handed.text
        assert page.post("/sso/session").status_code == 401  # once
        return handed.json()["token"]


@pytest.mark.parametrize(
    "signing, client_auth, audience",
    [("RS256", "client_secret_basic", provider.AUDIENCE), ("ES256", "client_secret_post", None)],
    ids=["RS256-basic-resource", "ES256-post-client-id"],
)
def test_the_real_provider_signs_people_in_and_its_stop_keeps_them_signed_in(tmp_path, signing, client_auth, audience):
    app = signed_on("mongomock", "http://127.0.0.1:9", audience=audience, OIDC_CLIENT_SECRET=provider.CLIENT_SECRET)
    api = FlaskClient(app)
    with serving(app) as port:
        redirect = f"http://127.0.0.1:{port}/sso/callback,{provider.REDIRECT_URI}"
        token_audience = None if audience else provider.CLIENT_ID  # the client id as the tokens' audience
        with provider.provider(
            tmp_path, redirect_uri=redirect, signing=signing, client_auth=client_auth, audience=token_audience
        ) as op:
            app.config.update(
                OIDC_ISSUER=op.issuer, OIDC_CLIENT_AUTH=client_auth, PUBLIC_URL=f"http://127.0.0.1:{port}"
            )
            op.set_accounts({"dana": {"groups": ["payments"]}})
            token = _signed_in_through_the_page(app, op, port, "dana")
            assert api.get("/users/me", headers=bearer(token)).json["username"] == "dana"
            access = op.token("dana")
            assert api.get("/users/me", headers=bearer(access)).status == 200
    # the provider stopped: its tokens, signed with the keys held, go on working
    assert api.get("/users/me", headers=bearer(access)).status == 200
    assert api.get("/users/me", headers=bearer(token)).status == 200
