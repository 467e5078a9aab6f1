"""History: every change keeps the version it replaced; pages of versions, one version, the diff
between two, restoring one; at most REVISIONS_KEPT kept; gone with the blueprint."""

import pytest

from app.storage.database import get_db
from support.http import assert_problem, create

V1 = "services:\n  web:\n    image: nginx:1\n"


def versions(api, blueprint, user="alice", limit=50):
    """Every version, newest first, following `next`."""
    seen, url = [], f"/blueprints/{blueprint}/revisions?limit={limit}"
    while url:
        r = api.get(url, user=user)
        assert r.status == 200, r.json
        seen += r.json["items"]
        url = r.headers["link"][1 : r.headers["link"].index(">")] if r.json["next"] else None
    return seen


@pytest.fixture
def edited(api):
    """A PUBLIC blueprint at rev 4: created, renamed, its yml changed, tagged."""
    made = create(api, "blueprints", name="one", blueprintType="compose", yml=V1, entitlementType="PUBLIC").json
    path = f"/blueprints/{made['id']}"
    api.patch(path, json={"name": "two"}, user="alice")
    api.patch(path, json={"yml": V1.replace("nginx:1", "nginx:2")}, user="admin")
    api.put(
        path,
        json={
            "name": "two",
            "blueprintType": "compose",
            "yml": V1.replace("nginx:1", "nginx:2"),
            "entitlementType": "PUBLIC",
            "tags": ["Web"],
        },
        user="alice",
    )
    return made["id"]


def test_every_change_keeps_the_version_it_replaced(api, edited):
    seen = versions(api, edited, limit=3)
    assert [(v["rev"], v["name"], v["updatedBy"]) for v in seen] == [
        (4, "two", "alice"),
        (3, "two", "admin"),
        (2, "two", "alice"),
        (1, "one", "alice"),
    ]
    assert seen[0] == api.get(f"/blueprints/{edited}", user="alice").json  # the current one, first
    as_bob = api.get(f"/blueprints/{edited}/revisions/1", user="bob").json  # whoever may read it
    assert as_bob["can"] == {"change": False, "delete": False, "deploy": True} and seen[3]["can"]["change"]
    assert {**as_bob, "can": seen[3]["can"]} == seen[3]
    assert seen[3]["requirements"]["containers"] == 1


def test_the_diff_names_changed_fields_and_changed_lines(api, edited):
    latest = api.get(f"/blueprints/{edited}/diff", user="alice").json
    assert latest == {"from": 3, "to": 4, "fields": {"tags": {"from": [], "to": ["web"]}}, "yml": ""}
    older = api.get(f"/blueprints/{edited}/diff?from=1&to=3", user="bob").json
    assert older["fields"] == {"name": {"from": "one", "to": "two"}}
    assert "-    image: nginx:1\n+    image: nginx:2\n" in older["yml"] and older["yml"].startswith(
        "--- rev 1\n+++ rev 3"
    )
    assert_problem(api.get(f"/blueprints/{edited}/diff?from=9", user="alice"), 404)
    assert_problem(api.get(f"/blueprints/{edited}/diff?from=0", user="alice"), 422)


def test_a_restore_makes_a_new_version_of_an_old_one_for_owners_only(api, edited):
    path = f"/blueprints/{edited}"
    tag = api.get(path, user="alice").headers["etag"]
    assert_problem(api.post(f"{path}/revisions/1/restore", user="alice", headers={"If-Match": '"1"'}), 412)
    assert_problem(api.post(f"{path}/revisions/1/restore", user="bob"), 403)  # may read, may not change
    r = api.post(f"{path}/revisions/1/restore", user="alice", headers={"If-Match": tag})
    assert r.status == 200 and (r.json["rev"], r.json["name"], r.json["tags"]) == (5, "one", [])
    assert r.json["yml"] == V1 and r.headers["etag"] != tag
    assert [v["rev"] for v in versions(api, edited)] == [5, 4, 3, 2, 1]
    assert_problem(api.post(f"{path}/revisions/9/restore", user="alice"), 404)


@pytest.mark.parametrize(
    "content_type, body",
    [
        ("text/plain", ""),
        ("application/x-www-form-urlencoded", ""),
        ("multipart/form-data; boundary=x", ""),
        ("text/plain", "a=b"),
        (None, "a=b"),
    ],
)
def test_a_bodiless_change_refuses_what_a_cross_site_form_can_send(api, edited, content_type, body):
    """A form on another site can POST these types while the browser holds Basic credentials."""
    path = f"/blueprints/{edited}"
    headers = {"Content-Type": content_type} if content_type else {}
    for target in (f"{path}/revisions/1/restore", "/tokens"):
        assert_problem(api.post(target, data=body, headers=headers, user="alice"), 415)
    assert_problem(api.put(f"{path}/star", data=body, headers=headers, user="alice"), 415)
    assert api.get(path, user="alice").json["rev"] == 4  # nothing restored
    assert_problem(api.post(f"{path}/revisions/1/restore", data=body, headers=headers), 401)  # credentials first
    json_type = {"Content-Type": "application/json"}
    assert api.post(f"{path}/revisions/1/restore", data="", headers=json_type, user="alice").status == 200
    assert api.post(f"{path}/revisions/1/restore", user="alice").status == 200  # no body, no type: fine


def test_a_blueprint_the_caller_may_not_read_has_no_history(api):
    private = create(api, "blueprints", name="mine").json
    for path in ("revisions", "revisions/1", "diff"):
        assert_problem(api.get(f"/blueprints/{private['id']}/{path}", user="bob"), 404)
    assert_problem(api.post(f"/blueprints/{private['id']}/revisions/1/restore", user="bob"), 404)


def test_only_the_newest_are_kept_and_all_go_with_the_blueprint(api, app):
    app.config["REVISIONS_KEPT"] = 3
    made = create(api, "blueprints", name="v1").json
    for i in range(2, 8):
        api.patch(f"/blueprints/{made['id']}", json={"name": f"v{i}"}, user="alice")
    assert [v["name"] for v in versions(api, made["id"])] == ["v7", "v6", "v5"]
    assert_problem(api.get(f"/blueprints/{made['id']}/revisions/4", user="alice"), 404)
    assert api.delete(f"/blueprints/{made['id']}", user="alice").status == 204
    with app.app_context():
        assert list(get_db().revisions.find({})) == []


def test_dry_runs_and_stars_make_no_version(api):
    made = create(api, "blueprints", name="a", entitlementType="PUBLIC").json
    path = f"/blueprints/{made['id']}"
    api.patch(f"{path}?dryRun=true", json={"name": "b"}, user="alice")
    api.put(f"{path}/star", user="bob")
    assert [v["rev"] for v in versions(api, made["id"])] == [1]
