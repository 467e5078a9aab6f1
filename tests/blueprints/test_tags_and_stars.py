"""Tags (lowercase, each once, at most 20; `?tag=` repeatable, all must match) and stars
(idempotent, counted exactly, `starred` per caller, `?starred=`)."""

from concurrent.futures import ThreadPoolExecutor

import pytest

from app.access.users import store as users
from support.http import assert_problem, create


def test_tags_are_lowercase_once_in_the_order_first_sent(api):
    made = create(api, "blueprints", tags=["Web", "prod", "WEB", "db.v2"]).json
    assert made["tags"] == ["web", "prod", "db.v2"]
    path = f"/blueprints/{made['id']}"
    assert api.patch(path, json={"name": "x"}, user="alice").json["tags"] == ["web", "prod", "db.v2"]
    assert api.patch(path, json={"tags": None}, user="alice").json["tags"] == []
    assert api.put(path, json={"tags": ["a"]}, user="alice").json["tags"] == ["a"]
    assert api.put(path, json={}, user="alice").json["tags"] == []


@pytest.mark.parametrize("tags", [["x"] * 0 + [f"t{i}" for i in range(21)], ["has space"], [""], ["x" * 65], "web"])
def test_bad_tags_are_422(api, tags):
    assert "tags" in str(assert_problem(api.post("/blueprints", json={"tags": tags}, user="alice"), 422)["errors"])


def test_the_tag_filter_needs_every_tag(api):
    create(api, "blueprints", name="a", tags=["web", "prod"])
    create(api, "blueprints", name="b", tags=["web"])
    create(api, "blueprints", name="c", tags=["db", "prod"], entitlementType="PUBLIC")

    def names(query, user="alice"):
        return sorted(item["name"] for item in api.get(f"/blueprints?{query}", user=user).json["items"])

    assert names("tag=web") == ["a", "b"]
    assert names("tag=WEB&tag=prod") == ["a"]
    assert names("tag=prod") == ["a", "c"]
    assert names("tag=prod", user="bob") == ["c"]
    assert names("tag=prod&tag=web", user="admin") == ["a"]
    assert names("tag=nothing") == []
    assert "tag" in str(assert_problem(api.get("/blueprints?tag=a%20b", user="alice"), 422)["errors"])


def test_stars_are_idempotent_and_per_caller(api):
    made = create(api, "blueprints", entitlementType="PUBLIC").json
    path = f"/blueprints/{made['id']}"
    assert (made["stars"], made["starred"]) == (0, False)
    for _ in range(2):
        assert api.put(f"{path}/star", user="bob").status == 204
    assert api.put(f"{path}/star", user="victor").status == 204  # viewers read, so they star
    assert (api.get(path, user="bob").json["stars"], api.get(path, user="bob").json["starred"]) == (2, True)
    assert (api.get(path, user="alice").json["stars"], api.get(path, user="alice").json["starred"]) == (2, False)
    for _ in range(2):
        assert api.delete(f"{path}/star", user="bob").status == 204
    assert api.get(path, user="bob").json == {**api.get(path, user="bob").json, "stars": 1, "starred": False}
    etag = api.get(path, user="alice").headers["etag"]
    assert api.put(f"{path}/star", user="alice").status == 204
    assert api.get(path, user="alice").headers["etag"] == etag  # a star is not a new version


def test_only_readable_blueprints_are_starred(api):
    private = create(api, "blueprints").json
    assert_problem(api.put(f"/blueprints/{private['id']}/star", user="bob"), 404)
    assert_problem(api.delete(f"/blueprints/{'0' * 24}/star", user="bob"), 404)


def test_the_starred_filter(api):
    a = create(api, "blueprints", name="a", entitlementType="PUBLIC").json
    create(api, "blueprints", name="b", entitlementType="PUBLIC")
    c = create(api, "blueprints", name="c", entitlementType="CUSTOM", entitledUsers=["bob"]).json
    for blueprint in (a, c):
        api.put(f"/blueprints/{blueprint['id']}/star", user="bob")

    def names(query):
        return sorted(item["name"] for item in api.get(f"/blueprints?{query}", user="bob").json["items"])

    assert names("starred=true") == ["a", "c"]
    assert names("starred=false") == ["b"]
    api.patch(f"/blueprints/{c['id']}", json={"entitledUsers": ["carol"]}, user="alice")
    assert names("starred=true") == ["a"]  # a star does not outlive the right to read


@pytest.mark.parametrize("app", ["socket"], indirect=True)
def test_twenty_users_starring_and_unstarring_at_once_leave_an_exact_count(api, app):
    names = [f"fan{i:02d}" for i in range(20)]
    with app.app_context():
        for name in names:
            users.create(name, "correct horse battery", "viewer")
    made = create(api, "blueprints", entitlementType="PUBLIC").json
    path = f"/blueprints/{made['id']}/star"

    def toggle(name):  # star, unstar, star again: every second user ends unstarred
        calls = [api.put, api.delete, api.put] if int(name[3:]) % 2 else [api.put, api.delete]
        return [call(path, user=name).status for call in calls]

    with ThreadPoolExecutor(max_workers=20) as pool:
        statuses = list(pool.map(toggle, names))
    assert all(status == 204 for run in statuses for status in run)
    assert api.get(f"/blueprints/{made['id']}", user="admin").json["stars"] == 10


def test_a_star_between_a_changes_read_and_write_is_kept_and_its_if_match_still_holds(api, app, monkeypatch):
    from app.blueprints.storage import Blueprints, store

    made = create(api, "blueprints", name="before", entitlementType="PUBLIC").json
    path = f"/blueprints/{made['id']}"
    tag = api.get(path, user="alice").headers["etag"]
    apply_rules, raced = Blueprints.apply_rules, []

    def star_meanwhile(self, changes, stored, user):  # the first attempt's version is then stale
        if not raced:
            raced.append(store.star(made["id"], {"username": "bob", "role": "member"}, starred=True))
        return apply_rules(self, changes, stored, user)

    monkeypatch.setattr(Blueprints, "apply_rules", star_meanwhile)
    r = api.patch(path, json={"name": "after"}, user="alice", headers={"If-Match": tag})
    assert r.status == 200, r.json
    assert raced and r.json["stars"] == 1 and r.json["name"] == "after"
    assert [item["name"] for item in api.get("/blueprints?starred=true", user="bob").json["items"]] == ["after"]
    assert [item["name"] for item in api.get("/blueprints?name=after", user="bob").json["items"]] == ["after"]


def test_following_the_link_keeps_every_repeated_filter(api):
    """`?tag=a&tag=b` on the next page too: a Link that kept only `tag=a` listed blueprints without `b`."""
    for index in range(3):
        create(api, "blueprints", name=f"both{index}", tags=["a", "b"])
        create(api, "blueprints", name=f"one{index}", tags=["a"])
    seen, path = [], "/blueprints?tag=a&tag=b&limit=1"
    while path:
        page = api.get(path, user="alice")
        seen += [item["name"] for item in page.json["items"]]
        link = page.headers.get("link")
        path = link[link.index("/blueprints") : link.index(">")] if link else None
        assert path is None or ("tag=a" in path and "tag=b" in path), path
    assert sorted(seen) == ["both0", "both1", "both2"]
