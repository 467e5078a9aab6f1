"""`bpctl source add|ls|sync|rm` against a real service and a real git server: a catalog followed,
its syncs' reports, a conflict shown with its diff (exit 3) until forced, credentials read from
the environment, never from the command line."""

import json

import pytest

from support import corpus
from support.apps import serving
from support.bpctl import Bpctl
from support.git_servers import TOKEN, forge, reaching, repository  # noqa: F401 (fixtures)
from support.http import SocketClient

ALICE = {"BPCTL_USERNAME": "alice", "BPCTL_PASSWORD": "correct horse battery"}


@pytest.fixture
def bpctl(socket_app, forge, monkeypatch, tmp_path):  # noqa: F811
    reaching(socket_app, forge, monkeypatch)
    with serving(socket_app) as port:
        client = Bpctl(f"http://127.0.0.1:{port}", tmp_path / "config")
        client.api = SocketClient(port)
        yield client


def test_a_source_added_synced_listed_and_its_conflict_forced(bpctl, forge, repository):  # noqa: F811
    commit = repository.commit("catalog", corpus.dokploy_files("ghost", "plausible"))
    done = bpctl("source", "add", forge.url(repository), "--format", "dokploy", "--sync", **ALICE)
    assert done.code == 0, done.err
    assert "2 created" in done.err and f"at commit {commit}" in done.err and "/webhook" in done.err
    assert "ghost" in done.out and "created" in done.out
    listed = bpctl("source", "ls", **ALICE)
    assert listed.code == 0 and commit[:12] in listed.out and "2 created" in listed.out
    source_id = json.loads(bpctl("source", "ls", "-o", "json", **ALICE).out)[0]["id"]
    ghost = next(item for item in bpctl.api.get("/blueprints", user="alice").json["items"] if item["name"] == "Ghost")
    yml = ghost["yml"].replace("ghost:6-alpine", "ghost:6.1")
    assert bpctl.api.patch(f"/blueprints/{ghost['id']}", json={"yml": yml}, user="alice").status == 200
    compose = corpus.dokploy_files("ghost")["blueprints/ghost/docker-compose.yml"]
    repository.commit("upstream", {"blueprints/ghost/docker-compose.yml": compose.replace("mysql:8.0", "mysql:8.4")})
    conflicted = bpctl("source", "sync", source_id, **ALICE)
    assert conflicted.code == 3 and "1 conflict" in conflicted.err and "+    image: mysql:8.4" in conflicted.err
    forced = bpctl("source", "sync", source_id, "--force", "-o", "json", **ALICE)
    assert forced.code == 0 and json.loads(forced.out)["counts"]["updated"] == 1
    assert bpctl("source", "rm", source_id, **ALICE).code == 0
    assert json.loads(bpctl("source", "ls", "-o", "json", **ALICE).out) == []


def test_credentials_come_from_the_environment(bpctl, forge, repository):  # noqa: F811
    repository.commit("catalog", corpus.dokploy_files("ghost"))
    url = forge.url(repository, "private")
    missing = bpctl("source", "add", url, "--format", "dokploy", "--token-env", "CATALOG_TOKEN", **ALICE)
    assert missing.code == 2 and "CATALOG_TOKEN is not set" in missing.err
    done = bpctl(
        "source",
        "add",
        url,
        "--format",
        "dokploy",
        "--token-env",
        "CATALOG_TOKEN",
        "--sync",
        CATALOG_TOKEN=TOKEN,
        **ALICE,
    )
    assert done.code == 0 and "1 created" in done.err and TOKEN not in done.out + done.err
    refused = bpctl("source", "add", url, "--format", "dokploy", "--sync", **ALICE)
    assert refused.code == 3 and "syncing failed: " in refused.err and "give the source a token" in refused.err
