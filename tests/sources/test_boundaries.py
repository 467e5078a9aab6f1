"""A source writes only what it made, with its owner's rights as they are at each sync, never
with the rights of whoever last changed or started it; a new address forgets the credentials
given for the old one. Against a real git server (support/git_servers.py)."""

import json

import pytest

from app.access.users import store as users
from support import corpus
from support.http import create
from support.jobs import ended, finished
from support.webhooks import SECRET, deliver, push, signed_headers


def quota_file(profile_id, memory="1Ti"):
    """A `kubernetes-quota` document as an export writes one, naming a profile by its id."""
    return (
        "apiVersion: v1\nkind: ResourceQuota\nmetadata:\n  name: taken\n  annotations:\n"
        f"    blueprints/profile-id: '{profile_id}'\nspec:\n  hard:\n    limits.memory: {memory}\n"
        "    limits.cpu: '1000'\n"
    )


def sync(api, source, user):
    return finished(api, api.post(f"/sources/{source['id']}/sync", json={}, user=user), user)


def test_a_quota_document_naming_a_profile_the_source_did_not_make_is_refused(api, follows, forge, repository):
    carols = create(api, "profiles", user="carol", name="carol", memoryCap="8Gi").json
    shared = create(api, "profiles", user="admin", name="shared", memoryCap="8Gi").json
    for owner, named in (("carol", carols), ("admin", shared)):  # neither source made the profile it names
        repository.commit("a quota", {"quota.yaml": quota_file(named["id"])})
        body = {"url": forge.url(repository), "format": "kubernetes-quota"}
        source = api.post("/sources", json=body, user=owner).json
        job = sync(api, source, owner)
        assert job["state"] == "done", job["error"]
        outcomes = {result["outcome"] for result in job["report"]["results"] if result["outcome"] != "created"}
        assert outcomes <= {"refused"}
        refused = [result for result in job["report"]["results"] if result["outcome"] == "refused"]
        assert refused and all("did not make" in " ".join(result["problems"]) for result in refused)
    assert api.get(f"/profiles/{carols['id']}", user="carol").json["memoryCap"] == "8Gi"
    assert api.get(f"/profiles/{shared['id']}", user="admin").json["memoryCap"] == "8Gi"


def test_a_push_syncs_as_the_sources_owner_not_as_the_admin_who_last_changed_it(api, follows, forge, repository):
    shared = create(api, "profiles", user="admin", name="shared", memoryCap="8Gi").json
    repository.commit("a quota", {"q.yaml": quota_file(shared["id"])})
    body = {"url": forge.url(repository), "format": "kubernetes-quota", "secret": SECRET}
    source = api.post("/sources", json=body, user="carol").json
    assert api.patch(f"/sources/{source['id']}", json={"interval": 3600}, user="admin").status == 200
    raw = json.dumps(push()).encode()
    answered = deliver(api, source, push(), signed_headers("github", raw))
    assert answered.status == 202, answered.json
    job = ended(api, answered.json["job"]["id"], "carol")
    assert job["state"] == "done" and job["report"]["counts"]["created"] == 1, job  # a profile of her own
    assert api.get(f"/profiles/{shared['id']}", user="admin").json["memoryCap"] == "8Gi"


def test_a_sync_whose_owner_may_no_longer_write_fails_saying_so(api, follows, forge, repository):
    repository.commit("catalog", corpus.dokploy_files("ghost"))
    source = api.post("/sources", json={"url": forge.url(repository), "format": "dokploy"}, user="carol").json
    assert source["can"] == {"change": True, "delete": True}
    with follows.app_context():
        users.set_role("carol", "viewer")  # as `flask users role` does
    assert api.get(f"/sources/{source['id']}", user="carol").json["can"] == {"change": False, "delete": False}
    assert api.post(f"/sources/{source['id']}/sync", json={}, user="carol").status == 403  # as `can` says
    job = sync(api, source, "admin")  # the admin starts it: it still acts as carol, now a viewer
    assert job["state"] == "failed" and "may no longer write" in job["error"], job
    assert api.get("/blueprints", user="admin").json["items"] == []


def test_a_teams_source_syncs_as_the_team_whoever_left_it(api, follows, forge, repository):
    assert api.post("/teams", json={"name": "pay"}, user="admin").status == 201
    assert api.put("/teams/pay/members/bob", json={"role": "member"}, user="admin").status == 200
    repository.commit("catalog", corpus.dokploy_files("ghost"))
    body = {"url": forge.url(repository), "format": "dokploy", "owner": "team:pay"}
    source = api.post("/sources", json=body, user="bob").json
    assert api.delete("/teams/pay/members/bob", user="bob").status == 204  # bob, who made it, leaves
    job = sync(api, source, "admin")
    assert job["state"] == "done", job
    (made,) = job["report"]["results"]
    assert api.get(f"/blueprints/{made['id']}", user="admin").json["owner"] == "team:pay"
    assert api.get(f"/blueprints/{made['id']}", user="bob").status == 404  # no longer his to read


def test_a_new_address_forgets_the_credentials_given_for_the_old_one(api, follows, forge, repository):
    body = {"url": forge.url(repository), "format": "dokploy", "token": "t0ken-for-the-forge", "secret": SECRET}
    source = api.post("/sources", json=body, user="bob").json
    assert source["hasToken"] and source["hasSecret"]
    same = api.patch(f"/sources/{source['id']}", json={"interval": 600}, user="bob").json
    assert same["hasToken"] and same["hasSecret"]
    moved = api.patch(f"/sources/{source['id']}", json={"url": forge.url(repository, path="other")}, user="bob").json
    assert not moved["hasToken"] and not moved["hasSecret"]
    again = {"url": forge.url(repository), "token": "t0ken-for-the-forge"}
    assert api.patch(f"/sources/{source['id']}", json=again, user="bob").json["hasToken"]


@pytest.mark.parametrize(
    "widths, bound",
    [
        ((10, 10, 10, 10, 10, 10), "more than 5000 files"),  # 1,000,000 paths, a few kilobytes packed
        ((1,) * 33, "deeper than 32 folders"),
        ((4997,), None),  # with the template's three files, 5,000: at the bound, taken
        ((4998,), "more than 5000 files"),
    ],
)
def test_the_bounds_hold_while_the_tree_is_listed(api, follows, forge, repository, widths, bound):
    repository.commit("catalog", corpus.dokploy_files("ghost"))
    repository.grafted("bomb", list(widths))
    source = api.post("/sources", json={"url": forge.url(repository), "format": "dokploy"}, user="alice").json
    job = sync(api, source, "alice")
    if bound is None:
        assert job["state"] == "done" and job["report"]["counts"]["created"] == 1, job
    else:
        assert job["state"] == "failed" and bound in job["error"], job
