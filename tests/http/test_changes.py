"""PATCH, PUT and DELETE: what changes, preconditions, and concurrent edits."""

from concurrent.futures import ThreadPoolExecutor

import pytest

from support.http import assert_problem, create


def create_item(api, collection, user="alice", **fields):
    """The new resource's path, body and ETag."""
    r = create(api, collection, user, **fields)
    return f"/{collection}/{r.json['id']}", r.json, r.headers["etag"]


def test_patch_changes_only_what_is_sent(api):
    path, before, tag = create_item(api, "profiles", name="p", memoryCap="1Gi", cpuCap="2")
    r = api.patch(path, json={"cpuCap": "500m", "name": "  q "}, user="alice")
    assert r.status == 200
    after = r.json
    assert (after["name"], after["cpuCap"], after["memoryCap"]) == ("q", "500m", "1Gi")
    assert after["limits"]["cpuMillis"] == 500 and after["limits"]["memoryBytes"] == 1024**3
    assert after["createdAt"] == before["createdAt"] and after["updatedAt"] >= before["updatedAt"]
    assert r.headers["etag"] != tag
    assert api.get(path, user="alice").json == after


def test_patch_null_unsets_a_string(api):
    path, _, _ = create_item(api, "blueprints", name="b", version="1")
    assert api.patch(path, json={"version": None}, user="alice").json["version"] is None


def test_put_resets_what_is_not_sent(api):
    path, _, _ = create_item(
        api,
        "blueprints",
        name="b",
        version="1",
        description="d",
        blueprintType="t",
        yml="a: 1",
        entitlementType="CUSTOM",
        entitledUsers=["bob"],
        inactive=True,
    )
    after = api.put(path, json={"name": "c"}, user="alice").json
    assert {
        k: after[k]
        for k in (
            "name",
            "version",
            "description",
            "blueprintType",
            "yml",
            "entitlementType",
            "entitledUsers",
            "inactive",
        )
    } == {
        "name": "c",
        "version": None,
        "description": None,
        "blueprintType": None,
        "yml": None,
        "entitlementType": "OWNER",
        "entitledUsers": [],
        "inactive": False,
    }
    ppath, _, _ = create_item(api, "profiles", name="p", defaultProfile=True, memoryCap="1")
    after = api.put(ppath, json={}, user="alice").json
    assert after["defaultProfile"] is False and after["memoryCap"] is None and after["name"] is None


@pytest.mark.parametrize("method", ["patch", "put"])
@pytest.mark.parametrize(
    "body, field",
    [
        ({"memoryCap": "lots"}, "memoryCap"),
        ({"defaultProfile": None}, "defaultProfile"),
        ({"id": "x"}, "id"),
        ({"owner": "bob"}, "owner"),
        ({"colour": 1}, "colour"),
        ({"name": ""}, "name"),
    ],
)
def test_updates_are_validated_like_creates(api, method, body, field):
    path, before, _ = create_item(api, "profiles", name="p")
    problem = assert_problem(getattr(api, method)(path, json=body, user="alice"), 422)
    assert field in problem["errors"]
    assert api.get(path, user="alice").json == before


@pytest.mark.parametrize("method", ["patch", "put", "delete"])
def test_missing_and_malformed_ids_are_404(api, method):
    for id_ in ("0" * 24, "nope"):
        kwargs = {} if method == "delete" else {"json": {}}
        assert_problem(getattr(api, method)(f"/blueprints/{id_}", user="alice", **kwargs), 404)


def test_a_change_applies_only_while_if_match_names_the_current_version(api):
    path, _, tag = create_item(api, "profiles", name="p")
    assert_problem(api.patch(path, json={"name": "x"}, user="alice", headers={"If-Match": '"999"'}), 412)
    assert_problem(api.patch(path, json={"name": "x"}, user="alice", headers={"If-Match": "W/" + tag}), 412)
    r = api.patch(path, json={"name": "x"}, user="alice", headers={"If-Match": f'"0", {tag}'})
    assert r.status == 200
    new_tag = r.headers["etag"]
    assert_problem(api.put(path, json={"name": "y"}, user="alice", headers={"If-Match": tag}), 412)
    assert api.put(path, json={"name": "y"}, user="alice", headers={"If-Match": "*"}).status == 200
    assert_problem(api.delete(path, user="alice", headers={"If-Match": new_tag}), 412)
    assert api.get(path, user="alice").json["name"] == "y"


def test_a_412_says_which_version_is_current_and_who_saved_it(api):
    path, _, tag = create_item(api, "blueprints", name="b", entitlementType="PUBLIC")
    changed = api.patch(path, json={"version": "2"}, user="admin")  # someone else saves first
    r = api.patch(path, json={"name": "mine"}, user="alice", headers={"If-Match": tag})
    body = assert_problem(r, 412)
    assert r.headers["etag"] == changed.headers["etag"] == '"2"'
    assert (body["rev"], body["updatedBy"], body["updatedAt"]) == (2, "admin", changed.json["updatedAt"])
    assert "revision 2 is admin's" in body["detail"]
    retried = api.patch(path, json={"name": "mine"}, user="alice", headers={"If-Match": r.headers["etag"]})
    assert retried.status == 200 and retried.json["rev"] == 3
    # a conditional GET sees the new version as modified
    assert api.get(path, user="alice", headers={"If-None-Match": tag}).status == 200


def test_empty_patch_changes_nothing(api):
    path, before, tag = create_item(api, "profiles", name="p")
    r = api.patch(path, json={}, user="alice", headers={"If-Match": tag})
    assert r.status == 200 and r.json == before and r.headers["etag"] == tag


def test_delete_is_final_for_everyone(api):
    path, created, tag = create_item(api, "blueprints", entitlementType="PUBLIC")
    assert api.delete(path, user="alice", headers={"If-Match": tag}).status == 204
    for user in ("alice", "bob", "admin"):
        assert_problem(api.get(path, user=user), 404)
        listed = api.get("/blueprints", user=user).json["items"]
        assert created["id"] not in [item["id"] for item in listed]
    assert_problem(api.delete(path, user="alice"), 404)
    assert_problem(api.patch(path, json={}, user="alice"), 404)


def test_default_profile_moves_on_update(api):
    first, _, _ = create_item(api, "profiles", defaultProfile=True)
    second, _, _ = create_item(api, "profiles")
    assert api.patch(second, json={"defaultProfile": True}, user="alice").json["defaultProfile"] is True
    assert api.get(first, user="alice").json["defaultProfile"] is False
    # re-asserting the current default leaves it default
    assert api.put(second, json={"defaultProfile": True}, user="alice").json["defaultProfile"] is True
    defaults = api.get("/profiles?defaultProfile=true", user="alice").json["items"]
    assert [p["id"] for p in defaults] == [second.rsplit("/", 1)[1]]
    others = api.get("/profiles?defaultProfile=false", user="alice").json["items"]  # found by its new keys
    assert [p["id"] for p in others] == [first.rsplit("/", 1)[1]]


def test_admin_edits_keep_the_owner(api):
    path, _, _ = create_item(api, "profiles", defaultProfile=False)
    r = api.patch(path, json={"defaultProfile": True}, user="admin")
    assert r.json["owner"] == "alice" and r.json["defaultProfile"] is True


@pytest.mark.parametrize("app", ["socket"], indirect=True)
def test_concurrent_patches_with_one_if_match_have_one_winner(api):
    path, _, tag = create_item(api, "profiles", name="start")

    def patch(i):
        return api.patch(path, json={"name": f"writer {i}"}, user="alice", headers={"If-Match": tag})

    with ThreadPoolExecutor(max_workers=10) as pool:
        statuses = [r.status for r in pool.map(patch, range(10))]
    assert sorted(statuses) == [200] + [412] * 9
    assert api.get(path, user="alice").json["name"] != "start"


@pytest.mark.parametrize("app", ["socket"], indirect=True)
def test_concurrent_default_updates_leave_one_default(api):
    paths = [create_item(api, "profiles", name=f"p{i}")[0] for i in range(10)]
    with ThreadPoolExecutor(max_workers=10) as pool:
        statuses = [
            r.status for r in pool.map(lambda p: api.patch(p, json={"defaultProfile": True}, user="alice"), paths)
        ]
    assert statuses == [200] * 10
    defaults = api.get("/profiles?defaultProfile=true", user="alice").json["items"]
    assert len(defaults) == 1


@pytest.mark.parametrize("header", ["If-Match", "If-None-Match"])
@pytest.mark.parametrize("value", ["", "1", "abc", '"unterminated', '"a" "b"'])
def test_malformed_preconditions_are_400(api, header, value):
    path, _, _ = create_item(api, "profiles")
    method = api.get if header == "If-None-Match" else api.delete
    problem = assert_problem(method(path, user="alice", headers={header: value}), 400)
    assert header in problem["detail"]
    assert api.get(path, user="alice").status == 200


def test_a_put_that_keeps_custom_without_naming_anyone_names_no_one(api):
    path, _, _ = create_item(api, "blueprints", name="shared", entitlementType="CUSTOM", entitledUsers=["bob"])
    after = api.put(path, json={"name": "shared", "entitlementType": "CUSTOM"}, user="alice")
    assert after.status == 200 and after.json["entitledUsers"] == []
    assert api.get("/blueprints?name=shared", user="bob").json["items"] == []
    assert [item["name"] for item in api.get("/blueprints?name=shared", user="alice").json["items"]] == ["shared"]


def test_a_blueprint_an_earlier_version_stored_with_null_entitled_users_is_listed(app, api):
    from app.blueprints.storage import store
    from app.storage.database import get_db

    path, _, _ = create_item(api, "blueprints", name="legacy", entitlementType="CUSTOM")
    with app.app_context():
        doc = get_db().blueprints.find_one({"name": "legacy"})
        get_db().blueprints.update_one({"_id": doc["_id"]}, {"$set": {"entitledUsers": None}})
        assert store.keys({**doc, "entitledUsers": None}) == doc["keys"]
    assert api.patch(path, json={"description": "still there"}, user="alice").status == 200
    assert [item["name"] for item in api.get("/blueprints?q=still", user="alice").json["items"]] == ["legacy"]


def test_a_204_has_no_body_and_no_content_type(api):
    path, _, _ = create_item(api, "blueprints", name="b", entitlementType="PUBLIC")
    token = api.post("/tokens", user="bob").json["token"]
    revoke = {"Authorization": f"Bearer {token}"}
    for r in (
        api.put(f"{path}/star", user="bob"),
        api.delete(f"{path}/star", user="bob"),
        api.delete(path, user="alice"),
        api.delete("/tokens", headers=revoke),
    ):
        assert r.status == 204 and r.body == b"" and "content-type" not in r.headers
        assert r.headers["api-version"] == "1.0.0"


@pytest.mark.parametrize("collection", ["profiles", "blueprints"])
def test_a_change_may_carry_the_id_of_its_path_as_dchq_s_clients_send_it(api, collection):
    made = create(api, collection, name="before").json
    path = f"/{collection}/{made['id']}"
    assert api.patch(path, json={"id": made["id"], "name": "after"}, user="alice").json["name"] == "after"
    sdk = f"{path}?id={made['id']}"  # the SDK also puts the URL's parameters in its query
    replaced = api.put(sdk, json={"id": made["id"], "name": "again"}, user="alice", headers={"If-Match": '"2"'})
    assert replaced.status == 200 and replaced.json["name"] == "again"
    for other in ["0" * 24, 5, None, made["id"].upper()]:
        errors = assert_problem(api.patch(path, json={"id": other, "name": "x"}, user="alice"), 422)["errors"]
        assert errors == {"id": ["Read-only field."]}
    assert "id" in assert_problem(api.put(f"{path}?id={'0' * 24}", json={}, user="alice"), 422)["errors"]
    created = api.post(f"/{collection}", json={"id": made["id"], "name": "copy"}, user="alice")
    assert assert_problem(created, 422)["errors"] == {"id": ["Read-only field."]}
    assert api.get(path, user="alice").json["name"] == "again"


def test_a_404_names_the_resource_it_could_not_find(api):
    made = create(api, "blueprints", name="web", blueprintType="compose", yml="services: {web: {image: x}}").json
    missing = "0" * 24
    render = api.post(f"/blueprints/{made['id']}/render", json={"profile": missing}, user="alice")
    assert assert_problem(render, 404)["detail"] == f"No profile '{missing}' that you may read."
    assert assert_problem(api.get(f"/blueprints/{missing}", user="alice"), 404)["detail"] == (
        f"No blueprint '{missing}' that you may read."
    )
    hidden = create(api, "profiles", user="bob").json["id"]  # exists, but not for alice: the same words
    fit = api.get(f"/blueprints/{made['id']}/fit?profile={hidden}", user="alice")
    assert assert_problem(fit, 404)["detail"] == f"No profile '{hidden}' that you may read."
