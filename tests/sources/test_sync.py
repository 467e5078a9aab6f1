"""A source's syncs against a real git server (smart HTTP behind nginx, with TLS): commits that
change, add, remove and rename templates between syncs, two syncs at once, a private repository's
token, no redirects, no symbolic links, and what was changed here kept as a conflict."""

from concurrent.futures import ThreadPoolExecutor

import pytest

from support import corpus
from support.git_servers import TOKEN
from support.http import assert_problem
from support.jobs import finished


def add(api, url, user="alice", **fields):
    made = api.post("/sources", json={"url": url, "format": "dokploy", **fields}, user=user)
    assert made.status == 201, made.json
    return made.json


def synced(api, source, user="alice", **body):
    return finished(api, api.post(f"/sources/{source['id']}/sync", json=body, user=user), user)


def outcomes(job):
    return {result["key"]: result["outcome"] for result in job["report"]["results"]}


def test_syncs_follow_commits_that_change_add_remove_and_rename_templates(api, follows, forge, repository):
    first_commit = repository.commit("two templates", corpus.dokploy_files("ghost", "plausible"))
    source = add(api, forge.url(repository))
    job = synced(api, source)
    assert job["state"] == "done", job
    assert job["kind"] == "sync" and job["source"] == source["id"] and job["report"]["commit"] == first_commit
    assert outcomes(job) == {"ghost": "created", "plausible": "created"}
    ghost = next(r for r in job["report"]["results"] if r["key"] == "ghost")
    made = api.get(f"/blueprints/{ghost['id']}", user="alice").json
    assert made["source"]["name"] == f"source:{source['id']}" and made["source"]["key"] == "ghost"
    assert made["owner"] == "alice"
    assert synced(api, source)["report"]["counts"]["unchanged"] == 2  # nothing new: nothing written
    compose = corpus.dokploy_files("ghost")["blueprints/ghost/docker-compose.yml"]
    second = repository.commit(
        "change one, add one, remove one, rename one",
        {
            "blueprints/ghost/docker-compose.yml": compose.replace("mysql:8.0", "mysql:8.4"),
            **corpus.dokploy_files("uptime-kuma"),
        },
        remove=["blueprints/plausible"],
    )
    job = synced(api, source)
    assert job["report"]["commit"] == second
    assert outcomes(job) == {"ghost": "updated", "uptime-kuma": "created", "plausible": "gone"}
    assert "mysql:8.4" in api.get(f"/blueprints/{ghost['id']}", user="alice").json["yml"]
    history = api.get(f"/blueprints/{ghost['id']}/revisions", user="alice").json["items"]
    assert [item["rev"] for item in history] == [2, 1]
    repository.commit("rename", rename={"blueprints/uptime-kuma": "blueprints/kuma"})
    job = synced(api, source)
    assert outcomes(job) == {"ghost": "unchanged", "kuma": "created", "uptime-kuma": "gone", "plausible": "gone"}
    read = api.get(f"/sources/{source['id']}", user="alice").json
    assert read["lastSync"]["state"] == "done" and read["lastSync"]["commit"] == job["report"]["commit"]
    assert read["lastSync"]["job"] == job["id"] and read["lastSync"]["counts"]["gone"] == 2
    gone = api.get("/blueprints?q=plausible", user="alice").json["items"]
    assert len(gone) == 1 and gone[0]["source"]["gone"] is True  # marked, kept
    repository.commit("plausible back", corpus.dokploy_files("plausible"))
    assert outcomes(synced(api, source))["plausible"] == "updated"  # back: the mark goes
    back = api.get(f"/blueprints/{gone[0]['id']}", user="alice").json
    assert "gone" not in back["source"] and back["source"]["key"] == "plausible"


@pytest.mark.parametrize("app", ["socket"], indirect=True)  # mongomock is not a concurrent database
def test_two_syncs_at_once_import_each_change_once(api, follows, forge, repository):
    repository.commit("catalog", corpus.dokploy_files("ghost", "plausible", "uptime-kuma"))
    source = add(api, forge.url(repository))
    with ThreadPoolExecutor(4) as pool:
        started = list(pool.map(lambda _: api.post(f"/sources/{source['id']}/sync", json={}, user="alice"), range(4)))
    jobs = [finished(api, one) for one in started]
    assert all(job["state"] == "done" for job in jobs)
    created = sum(job["report"]["counts"]["created"] for job in {job["id"]: job for job in jobs}.values())
    refused = sum(job["report"]["counts"]["refused"] for job in jobs)
    assert created == 3 and refused == 0
    listed = api.get("/blueprints?limit=200", user="alice").json["items"]
    assert sorted(item["source"]["key"] for item in listed) == ["ghost", "plausible", "uptime-kuma"]


def test_a_private_repository_takes_its_token_which_is_never_shown(api, follows, forge, repository):
    repository.commit("catalog", corpus.dokploy_files("ghost"))
    without = add(api, forge.url(repository, "private"))
    job = synced(api, without)
    assert job["state"] == "failed" and "refused access: give the source a token" in job["error"], job
    source = add(api, forge.url(repository, "private"), token=TOKEN)
    assert source["hasToken"] is True and "token" not in source and TOKEN not in str(source)
    job = synced(api, source)
    assert job["state"] == "done" and outcomes(job) == {"ghost": "created"}
    for user in ("alice", "admin"):
        assert TOKEN not in api.get(f"/sources/{source['id']}", user=user).body.decode()
        assert TOKEN not in api.get("/sources", user=user).body.decode()
    changed = api.patch(f"/sources/{source['id']}", json={"token": None}, user="alice")
    assert changed.status == 200 and changed.json["hasToken"] is False
    assert synced(api, source)["state"] == "failed"


def test_a_redirect_is_not_followed(api, follows, forge, repository):
    repository.commit("catalog", corpus.dokploy_files("ghost"))
    job = synced(api, add(api, forge.url(repository, "moved").removesuffix(repository.bare.name) + "x.git"))
    assert job["state"] == "failed" and api.get("/blueprints", user="alice").json["items"] == []


def test_symbolic_links_are_skipped_and_the_folder_stays_inside_the_repository(api, follows, forge, repository):
    repository.commit("catalog", corpus.dokploy_files("ghost"))
    repository.link("blueprints/escape/docker-compose.yml", "/etc/passwd")
    job = synced(api, add(api, forge.url(repository)))
    assert outcomes(job) == {"ghost": "created"}
    for path in ("../etc", "/etc", "blueprints/../../x", "-c"):
        refused = api.post(
            "/sources", json={"url": forge.url(repository), "format": "dokploy", "path": path}, user="alice"
        )
        assert "path" in assert_problem(refused, 422)["errors"], path


def test_a_blueprint_changed_here_stays_a_conflict_until_a_forced_sync(api, follows, forge, repository):
    repository.commit("catalog", corpus.dokploy_files("ghost"))
    source = add(api, forge.url(repository))
    ghost = synced(api, source)["report"]["results"][0]
    yml = api.get(f"/blueprints/{ghost['id']}", user="alice").json["yml"]
    assert api.patch(
        f"/blueprints/{ghost['id']}", json={"yml": yml.replace("ghost:6-alpine", "ghost:6.1")}, user="alice"
    )
    compose = corpus.dokploy_files("ghost")["blueprints/ghost/docker-compose.yml"]
    repository.commit("upstream", {"blueprints/ghost/docker-compose.yml": compose.replace("mysql:8.0", "mysql:8.4")})
    job = synced(api, source)
    assert outcomes(job) == {"ghost": "conflict"} and "+    image: mysql:8.4\n" in job["report"]["results"][0]["diff"]
    assert "ghost:6.1" in api.get(f"/blueprints/{ghost['id']}", user="alice").json["yml"]
    assert outcomes(synced(api, source, force=True)) == {"ghost": "updated"}
    now = api.get(f"/blueprints/{ghost['id']}", user="alice").json["yml"]
    assert "mysql:8.4" in now and "ghost:6-alpine" in now


def test_who_may_add_read_and_sync_a_source(api, follows, forge, repository):
    repository.commit("catalog", corpus.dokploy_files("ghost"))
    body = {"url": forge.url(repository), "format": "dokploy"}
    assert_problem(api.post("/sources", json=body, user="victor"), 403)  # a viewer
    source = add(api, forge.url(repository))
    assert api.get(f"/sources/{source['id']}", user="bob").status == 404
    assert_problem(api.post(f"/sources/{source['id']}/sync", json={}, user="bob"), 404)
    assert api.get("/sources", user="bob").json["items"] == []
    assert [item["id"] for item in api.get("/sources", user="admin").json["items"]] == [source["id"]]
    job = synced(api, source)
    assert api.get(f"/jobs/{job['id']}", user="bob").status == 404
    assert api.delete(f"/sources/{source['id']}", user="alice").status == 204
    assert api.get(f"/blueprints/{job['report']['results'][0]['id']}", user="alice").status == 200  # what it made stays
