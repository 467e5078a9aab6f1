"""`bpctl env add|ls|rm` against a real service: admins register a Docker Engine and a git
repository, credentials read from files and the environment (never the command line) and never
shown; a member is refused; an environment a profile names is kept, saying so."""

import json

import pytest

from support.apps import serving
from support.bpctl import Bpctl
from support.http import PASSWORD, SocketClient

ADMIN = {"BPCTL_USERNAME": "admin", "BPCTL_PASSWORD": PASSWORD}
ALICE = {"BPCTL_USERNAME": "alice", "BPCTL_PASSWORD": PASSWORD}
SOCKET = "/var/run/docker.sock"


@pytest.fixture
def bpctl(socket_app, tmp_path):
    socket_app.config.update(ENVIRONMENT_SOCKETS=(SOCKET,), ENVIRONMENT_HOSTS=("127.0.0.1",), ENVIRONMENT_PRIVATE=True)
    with serving(socket_app) as port:
        client = Bpctl(f"http://127.0.0.1:{port}", tmp_path / "config")
        client.api = SocketClient(port)
        yield client


def test_an_admin_adds_lists_and_removes_environments(bpctl, tmp_path):
    proxy = ("--proxy-network", "edge", "--entrypoint", "websecure", "--cert-resolver", "le")
    docker = bpctl("env", "add", "shared-docker", "--docker", f"unix://{SOCKET}", "--interval", "30", *proxy, **ADMIN)
    assert docker.code == 0 and "shared-docker (docker) registered" in docker.err, docker.err
    made = bpctl.api.get("/environments?name=shared-docker", user="admin").json["items"][0]
    assert made["proxy"] == {"network": "edge", "entrypoints": ["websecure"], "certResolver": "le"}
    tls = tmp_path / "tls"
    tls.mkdir()
    for name in ("ca.pem", "cert.pem"):
        (tls / name).write_text("-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n")
    (tls / "key.pem").write_text("-----BEGIN PRIVATE KEY-----\nthe-client-key\n-----END PRIVATE KEY-----\n")
    remote = bpctl(
        "env", "add", "remote", "--docker", "tcp://127.0.0.1:2376", "--tls-dir", str(tls), "-o", "json", **ADMIN
    )
    assert remote.code == 0, remote.err
    assert json.loads(remote.out)["hasTls"] is True and "the-client-key" not in remote.out
    gitops = bpctl(
        "env",
        "add",
        "gitops",
        "--git",
        "https://127.0.0.1/env.git",
        "--token-env",
        "ENV_TOKEN",
        ENV_TOKEN="t0k3n",
        **ADMIN,
    )
    assert gitops.code == 0, gitops.err
    listed = bpctl("env", "ls", **ADMIN)
    assert listed.code == 0
    rows = {line.split()[0]: line for line in listed.out.splitlines()[1:]}
    assert set(rows) == {"shared-docker", "remote", "gitops"}
    assert "unix:///var/run/docker.sock" in rows["shared-docker"] and "30s" in rows["shared-docker"]
    assert "not observed yet" in rows["gitops"] and "t0k3n" not in listed.out
    assert bpctl("env", "rm", "remote", **ADMIN).code == 0
    names = [item["name"] for item in json.loads(bpctl("env", "ls", "-o", "json", **ADMIN).out)]
    assert sorted(names) == ["gitops", "shared-docker"]


def test_what_is_refused_says_why(bpctl):
    both = bpctl("env", "add", "x", "--docker", f"unix://{SOCKET}", "--git", "https://127.0.0.1/e.git", **ADMIN)
    assert both.code == 2 and "one of --docker ENDPOINT and --git URL" in both.err
    half = bpctl("env", "add", "x", "--docker", f"unix://{SOCKET}", "--entrypoint", "websecure", **ADMIN)
    assert half.code == 2 and "--proxy-network" in half.err
    unset = bpctl("env", "add", "x", "--git", "https://127.0.0.1/e.git", "--token-env", "NOT_SET_HERE", **ADMIN)
    assert unset.code == 2 and "NOT_SET_HERE is not set" in unset.err
    member = bpctl("env", "add", "mine", "--docker", f"unix://{SOCKET}", **ALICE)
    assert member.code == 3 and "403" in member.err and "role does not allow" in member.err
    other = bpctl("env", "add", "x", "--docker", "unix:///run/other.sock", **ADMIN)
    assert other.code != 0 and "ENVIRONMENT_SOCKETS" in other.err
    assert bpctl("env", "add", "shared-docker", "--docker", f"unix://{SOCKET}", **ADMIN).code == 0
    profile = bpctl.api.post("/profiles", json={"name": "team", "environments": ["shared-docker"]}, user="admin")
    assert profile.status == 201
    kept = bpctl("env", "rm", "shared-docker", **ADMIN)
    assert kept.code != 0 and "profile 'team'" in kept.err
    missing = bpctl("env", "rm", "nowhere", **ADMIN)
    assert missing.code != 0 and "no environment named 'nowhere'" in missing.err


def test_deploy_into_an_environment_says_how_its_delivery_stands(bpctl):
    """No engine listens at the socket: the delivery fails, `--wait` and `status` say so with exit 1."""
    assert bpctl("env", "add", "shared-docker", "--docker", f"unix://{SOCKET}", **ADMIN).code == 0
    profile = bpctl.api.post("/profiles", json={"name": "team", "containerDefaults": {"memory": "64Mi"}}, user="alice")
    path = f"/profiles/{profile.json['id']}"
    assert bpctl.api.patch(path, json={"environments": ["shared-docker"]}, user="admin").status == 200
    web = "services:\n  web:\n    image: busybox:local\n"
    assert bpctl.api.post("/blueprints", json={"name": "web", "blueprintType": "compose", "yml": web}, user="alice")
    misused = bpctl("deploy", "web", "shop", "--profile", "team", "--wait", **ALICE)
    assert misused.code == 2 and "give --env too" in misused.err
    waited = bpctl("deploy", "web", "shop", "--profile", "team", "--env", "shared-docker", "--wait", **ALICE)
    assert waited.code == 1 and waited.out == "shop: failed in shared-docker, release 1\n"
    assert "docker compose up exited" in waited.err and "services:" not in waited.out
    stands = bpctl("status", **ALICE)
    assert stands.code == 1 and "shop" in stands.out and "failed" in stands.out
    plain = bpctl("deploy", "web", "plain", "--profile", "team", **ALICE)
    assert plain.code == 0 and plain.out.startswith("services:")  # without --env: the definition, to deploy oneself
    nowhere = bpctl("status", "plain", **ALICE)
    assert nowhere.code == 3 and "delivered nowhere" in nowhere.err
    as_json = json.loads(bpctl("status", "shop", "-o", "json", **ALICE).out)
    assert [one["delivery"]["state"] for one in as_json] == ["failed"]
