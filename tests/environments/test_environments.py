"""Environments as a resource: admins alone register, change and delete them; where one is reached
is checked before any connection (a listener there hears nothing); its credentials are write-only
and sealed at rest; a profile names the environments its instances may use (admins alone), and
an environment a profile names is not deleted."""

import pytest

from app.environments.storage import store as environments
from support.environments import SOCKET, docker
from support.http import assert_problem

PEM = "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n"
TLS = {"ca": PEM, "cert": PEM, "key": "-----BEGIN PRIVATE KEY-----\nsecret-key-material\n-----END PRIVATE KEY-----\n"}


def test_an_admin_registers_reads_changes_and_deletes_an_environment(api, allowed):
    made = api.post("/environments", json=docker(), user="admin")
    assert made.status == 201, made.json
    body = made.json
    assert made.headers["location"].endswith(f"/environments/{body['id']}")
    assert (body["name"], body["kind"], body["endpoint"], body["interval"], body["heal"]) == (
        "shared-docker",
        "docker",
        f"unix://{SOCKET}",
        60,
        False,
    )
    assert body["state"] is None and body["hasTls"] is False and body["can"] == {"change": True, "delete": True}
    read = api.get(f"/environments/{body['id']}", user="admin")
    assert read.status == 200 and read.json["name"] == "shared-docker"
    listed = api.get("/environments?name=shared-docker", user="admin").json["items"]
    assert [one["name"] for one in listed] == ["shared-docker"]
    changed = api.patch(f"/environments/{body['id']}", json={"interval": 300, "heal": True}, user="admin")
    assert (changed.status, changed.json["interval"], changed.json["heal"]) == (200, 300, True)
    assert api.delete(f"/environments/{body['id']}", user="admin").status == 204
    assert api.get(f"/environments/{body['id']}", user="admin").status == 404


def test_only_admins_touch_environments(api, allowed):
    made = api.post("/environments", json=docker(), user="admin").json
    assert_problem(api.post("/environments", json=docker("mine"), user="alice"), 403)
    assert api.get("/environments", user="alice").json["items"] == []  # no profile she reads names it
    assert_problem(api.get(f"/environments/{made['id']}", user="alice"), 404)
    assert_problem(api.patch(f"/environments/{made['id']}", json={"heal": True}, user="alice"), 404)
    assert_problem(api.delete(f"/environments/{made['id']}", user="alice"), 404)


def test_whoever_reads_a_profile_naming_an_environment_reads_its_name_kind_and_state(api, allowed):
    made = api.post("/environments", json=docker(tls=None, knownHosts="host ssh-ed25519 AAAA"), user="admin").json
    api.post("/environments", json=docker("other"), user="admin")
    profile = api.post("/profiles", json={"name": "team", "entitledUsers": ["bob"]}, user="alice").json
    assert api.patch(f"/profiles/{profile['id']}", json={"environments": ["shared-docker"]}, user="admin").status == 200
    shown = {"id", "name", "kind", "interval", "heal", "state", "can", "createdAt", "updatedAt"}
    for user in ("alice", "bob"):
        [listed] = api.get("/environments", user=user).json["items"]
        read = api.get(f"/environments/{made['id']}", user=user).json
        assert listed == read and set(read) == shown and read["name"] == "shared-docker", read
        assert read["can"] == {"change": False, "delete": False}
        assert api.get("/environments?name=other", user=user).json["items"] == []
    assert_problem(api.get(f"/environments/{made['id']}", user="carol"), 404)
    assert_problem(api.patch(f"/environments/{made['id']}", json={"heal": True}, user="alice"), 403)


def test_a_name_is_taken_once_and_a_name_or_kind_never_changes(api, allowed):
    made = api.post("/environments", json=docker(), user="admin").json
    assert "already" in assert_problem(api.post("/environments", json=docker(), user="admin"), 409)["detail"]
    for field, value in (("name", "other"), ("kind", "git")):
        refused = api.patch(f"/environments/{made['id']}", json={field: value}, user="admin")
        assert "never changes" in assert_problem(refused, 422)["errors"][field][0]


def test_where_an_environment_is_reached_is_checked_before_any_connection(api, allowed, listener):
    port = listener.getsockname()[1]
    allowed.config.update(ENVIRONMENT_HOSTS=(f"127.0.0.1:{port}", "10.1.2.3"))
    refusals = [
        (docker(endpoint="unix:///var/run/other.sock"), "endpoint", "ENVIRONMENT_SOCKETS"),
        (docker(endpoint=f"tcp://127.0.0.1:{port}", tls=TLS), "endpoint", "a loopback address"),
        (docker(endpoint=f"tcp://10.1.2.3:{port}", tls=TLS), "endpoint", "not a host environments may name"),
        (docker(endpoint="http://127.0.0.1:2375"), "endpoint", "unix:///path, tcp://HOST:PORT or ssh://"),
        (docker(endpoint="tcp://user:pw@10.1.2.3"), "endpoint", "nothing else"),
        (docker(endpoint="ssh://10.1.2.3"), "endpoint", "ssh://USER@HOST"),
        (docker(endpoint="ssh://u@10.1.2.3/run/../etc/x.sock"), "endpoint", "The engine's socket on the host"),
        (docker(endpoint="tcp://10.1.2.3/run/docker.sock", tls=TLS), "endpoint", "nothing else"),
        (docker(endpoint=None), "endpoint", "needs one"),
        (docker(url="https://git.example.test/env.git"), "url", "Not a field of a docker environment"),
        ({"name": "gitops", "kind": "git", "url": f"https://127.0.0.1:{port}/env.git"}, "url", "a loopback"),
        ({"name": "gitops", "kind": "git", "url": "file:///srv/env.git"}, "url", "Only https:// and ssh://"),
        ({"name": "gitops", "kind": "git", "url": "https://10.1.2.3/e.git", "path": "../x"}, "path", "no leading"),
        ({"name": "gitops", "kind": "git", "url": "https://10.1.2.3/e.git", "tls": TLS}, "tls", "Not a field"),
    ]
    for body, field, why in refusals:
        refused = api.post("/environments", json=body, user="admin")
        assert why in " ".join(assert_problem(refused, 422)["errors"][field]), (body, refused.json)
    allowed.config.update(ENVIRONMENT_PRIVATE=True)
    plain = api.post("/environments", json=docker(endpoint=f"tcp://127.0.0.1:{port}"), user="admin")
    assert "TLS only" in assert_problem(plain, 422)["errors"]["tls"][0]
    allowed.config.update(ENVIRONMENT_HOSTS=())
    off = api.post("/environments", json=docker(endpoint=f"tcp://127.0.0.1:{port}", tls=TLS), user="admin")
    assert "environments are off" in assert_problem(off, 422)["errors"]["endpoint"][0]
    with pytest.raises(BlockingIOError):
        listener.accept()  # nothing connected to check any of them


@pytest.mark.parametrize(
    "field, value",
    [("name", "Not_A_Label"), ("kind", "nomad"), ("interval", 5), ("interval", 3601), ("heal", "yes")],
)
def test_a_field_out_of_its_rule_is_a_422_naming_it(api, allowed, field, value):
    refused = api.post("/environments", json=docker(**{field: value}), user="admin")
    assert list(assert_problem(refused, 422)["errors"]) == [field]


def test_credentials_are_write_only_and_sealed_at_rest(api, allowed, listener):
    port = listener.getsockname()[1]
    allowed.config.update(ENVIRONMENT_HOSTS=(f"127.0.0.1:{port}",), ENVIRONMENT_PRIVATE=True)
    made = api.post("/environments", json=docker(endpoint=f"tcp://127.0.0.1:{port}", tls=TLS), user="admin")
    assert made.status == 201, made.json
    assert made.json["hasTls"] is True and "tls" not in made.json and "sealedTls" not in made.json
    with allowed.app_context():
        stored = environments.coll().find_one({"name": "shared-docker"})
    assert "tls" not in stored and "secret-key-material" not in stored["sealedTls"]
    answered = api.get(f"/environments/{made.json['id']}", user="admin").body
    assert b"secret-key-material" not in answered


def test_a_profile_names_its_environments_and_an_environment_it_names_stays(api, allowed):
    made = api.post("/environments", json=docker(), user="admin").json
    profile = api.post("/profiles", json={"name": "team"}, user="alice").json
    path = f"/profiles/{profile['id']}"
    assert_problem(api.patch(path, json={"environments": ["shared-docker"]}, user="alice"), 403)
    unknown = api.patch(path, json={"environments": ["nowhere"]}, user="admin")
    assert "nowhere" in assert_problem(unknown, 422)["errors"]["environments"][0]
    named = api.patch(path, json={"environments": ["shared-docker", "shared-docker"]}, user="admin")
    assert (named.status, named.json["environments"]) == (200, ["shared-docker"])
    kept = api.patch(path, json={"memoryCap": "1Gi"}, user="alice")  # sending none of them is allowed
    assert kept.status == 200 and kept.json["environments"] == ["shared-docker"]
    refused = api.delete(f"/environments/{made['id']}", user="admin")
    assert "profile 'team'" in assert_problem(refused, 409)["detail"]
    assert api.patch(path, json={"environments": []}, user="admin").status == 200
    assert api.delete(f"/environments/{made['id']}", user="admin").status == 204
