"""Where a sync may connect: https and ssh only, to a host SOURCE_HOSTS names, at a public address
unless SOURCE_PRIVATE; refused before any connection (a listener there hears nothing), checked
again at every sync, and the fetch connects to the address checked, never to a second lookup's;
ssh with the operator's host keys and the source's deploy key; scheduled syncs."""

import socket
from datetime import timedelta

import pytest

from app.access import addresses
from app.sources import schedule
from app.sources.storage import store as sources
from app.storage.database import now
from support import corpus
from support.git_servers import SshGit
from support.http import assert_problem
from support.jobs import ended, finished


def heard_nothing(sock):
    with pytest.raises(BlockingIOError):
        sock.accept()
    return True


def test_a_url_that_may_not_be_reached_is_refused_before_any_connection(api, app, listener):
    port = listener.getsockname()[1]
    hosts = (f"127.0.0.1:{port}", f"localhost:{port}", "*.example.test", "10.1.2.3")  # 10.1.2.3 at 443 only
    app.config.update(SOURCE_HOSTS=hosts, SOURCE_PRIVATE=False)
    refusals = {
        f"https://127.0.0.1:{port}/x.git": "a loopback address",
        f"https://localhost:{port}/x.git": "a loopback address",
        f"https://10.1.2.3:{port}/x.git": "not a host sources may name",
        f"https://127.0.0.1:{port + 1}/x.git": "not a host sources may name",  # another port of an allowed host
        f"git://127.0.0.1:{port}/x.git": "Only https:// and ssh://",
        f"http://127.0.0.1:{port}/x.git": "Only https:// and ssh://",
        "file:///etc/x.git": "Only https:// and ssh://",
        f"https://user:pass@127.0.0.1:{port}/x.git": "never in the URL",
        f"https://127.0.0.1:{port}/": "a path",
        f"ssh://git@127.0.0.1:{port}/x.git": "SOURCE_KNOWN_HOSTS",
        "https://nowhere.example.test/x.git": "does not resolve",
        "https://127.0.0.1:99999/x.git": "port",
        "git@github.com:o/r.git": "Only https:// and ssh://",
    }
    for url, why in refusals.items():
        refused = api.post("/sources", json={"url": url, "format": "dokploy"}, user="alice")
        assert why in " ".join(assert_problem(refused, 422)["errors"]["url"]), (url, refused.json)
    app.config.update(SOURCE_HOSTS=())
    off = api.post("/sources", json={"url": f"https://127.0.0.1:{port}/x.git", "format": "dokploy"}, user="alice")
    assert "sources are off" in assert_problem(off, 422)["errors"]["url"][0]
    assert heard_nothing(listener)


def test_every_sync_checks_the_address_again(api, app, listener):
    port = listener.getsockname()[1]
    app.config.update(SOURCE_HOSTS=(f"127.0.0.1:{port}",), SOURCE_PRIVATE=True)
    source = api.post("/sources", json={"url": f"https://127.0.0.1:{port}/x.git", "format": "dokploy"}, user="alice")
    assert source.status == 201
    app.config.update(SOURCE_PRIVATE=False)  # the operator closed loopback since
    job = finished(api, api.post(f"/sources/{source.json['id']}/sync", json={}, user="alice"))
    assert job["state"] == "failed" and "a loopback address" in job["error"]
    assert heard_nothing(listener)


def test_the_fetch_connects_to_the_address_checked_not_to_a_lookup_of_its_own(
    api, follows, forge, repository, monkeypatch
):
    """git.example.test resolves only in the service's own lookup: git, which never looks it up
    itself, reaches the forge through the address that lookup gave."""
    real = socket.getaddrinfo

    def resolver(host, *args, **kwargs):
        return real("127.0.0.1" if host == "git.example.test" else host, *args, **kwargs)

    monkeypatch.setattr(addresses.socket, "getaddrinfo", resolver)
    repository.commit("catalog", corpus.dokploy_files("ghost"))
    url = forge.url(repository, host="git.example.test")
    source = api.post("/sources", json={"url": url, "format": "dokploy"}, user="alice").json
    job = finished(api, api.post(f"/sources/{source['id']}/sync", json={}, user="alice"))
    assert job["state"] == "done", job
    with pytest.raises(socket.gaierror):
        real("git.example.test", 443)  # nobody else could have found it


@pytest.fixture(scope="module")
def ssh_forge(tmp_path_factory):
    with SshGit(tmp_path_factory.mktemp("ssh")) as server:
        yield server


def test_an_ssh_source_takes_its_deploy_key_and_the_operators_host_keys(api, follows, ssh_forge, repository, tmp_path):
    repository.commit("catalog", corpus.dokploy_files("ghost"))
    url = ssh_forge.url(repository)
    follows.config["SOURCE_KNOWN_HOSTS"] = str(ssh_forge.known_hosts)
    follows.config["SOURCE_HOSTS"] += (f"127.0.0.1:{ssh_forge.port}",)

    def sync_with(**credentials):
        made = api.post("/sources", json={"url": url, "format": "dokploy", **credentials}, user="alice")
        assert made.status == 201, made.json
        assert ssh_forge.deploy_key not in made.body.decode()
        return finished(api, api.post(f"/sources/{made.json['id']}/sync", json={}, user="alice"))

    done = sync_with(deployKey=ssh_forge.deploy_key)
    assert done["state"] == "done" and done["report"]["counts"]["created"] == 1, done
    assert "refused access" in sync_with(deployKey=ssh_forge.other_key)["error"]
    assert "refused access" in sync_with()["error"]
    unknown = tmp_path / "known_hosts"
    unknown.write_text("")
    follows.config["SOURCE_KNOWN_HOSTS"] = str(unknown)  # the host's key is not one the operator trusts
    assert sync_with(deployKey=ssh_forge.deploy_key)["state"] == "failed"


def test_a_due_source_is_synced_once_by_the_schedule(api, follows, forge, repository):
    repository.commit("catalog", corpus.dokploy_files("ghost"))
    made = api.post("/sources", json={"url": forge.url(repository), "format": "dokploy", "interval": 600}, user="alice")
    source = made.json
    with follows.app_context():
        assert schedule.run_due() == 0  # not due for ten minutes
        stored = sources.stored(sources.coll().find_one({})["_id"])
        sources.coll().update_one({"_id": stored["_id"]}, {"$set": {"nextSyncAt": now() - timedelta(seconds=1)}})
        assert schedule.run_due() == 1
        assert schedule.run_due() == 0  # moved on by its interval
        job_id = sources.stored(stored["_id"])["lastSync"]["job"]
    job = ended(api, job_id)
    assert job["state"] == "done" and job["report"]["counts"]["created"] == 1 and job["source"] == source["id"]
