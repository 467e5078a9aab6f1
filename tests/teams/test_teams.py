"""Teams: who may do what with a team, and with what a team owns or is given.

`pay` is maintained by admin; alice and bob are its members, victor (a global viewer) and carol
its viewers, and dave is in no team, unless a test says otherwise. Every rule of the contract's permission table is a
test here (docs/security.md has the table)."""

import pytest
import yaml

from support.http import PASSWORD, assert_problem, create
from support.on_kubernetes import taken_by_kubernetes

COMPOSE = "services:\n  web:\n    image: nginx:1.27\n    mem_limit: 64m\n    cpus: 0.1\n"


@pytest.fixture
def team(api):
    """The team `pay` with its members, as the admin made it; dave, a member, is in no team."""
    assert (
        api.post("/users", json={"username": "dave", "password": PASSWORD, "role": "member"}, user="admin").status
        == 201
    )
    assert api.post("/teams", json={"name": "pay"}, user="admin").status == 201
    for username, role in (("alice", "member"), ("bob", "member"), ("carol", "viewer"), ("victor", "viewer")):
        assert api.put(f"/teams/pay/members/{username}", json={"role": role}, user="admin").status == 200
    return "pay"


def profile(api, user="alice", **fields):
    return create(api, "profiles", user=user, name="budget", memoryCap="4Gi", cpuCap="4", **fields).json


def blueprint(api, user="alice", **fields):
    return create(api, "blueprints", user=user, name="web", blueprintType="compose", yml=COMPOSE, **fields).json


def deploy(api, made, budget, name="web", user="alice", **body):
    return api.post(
        "/instances", json={"name": name, "blueprint": made["id"], "profile": budget["id"], **body}, user=user
    )


def test_a_team_is_made_by_an_admin_who_maintains_it_and_is_read_by_its_members_alone(api, app):
    made = api.post("/teams", json={"name": "pay", "description": "Payments"}, user="admin")
    assert made.status == 201 and made.headers["location"].endswith("/teams/pay")
    assert made.json["members"] == [{"username": "admin", "role": "maintainer", "origin": "manual"}]
    assert made.json["role"] == "maintainer" and made.headers["etag"] == '"1"'
    assert_problem(api.post("/teams", json={"name": "pay"}, user="admin"), 409)
    assert_problem(api.post("/teams", json={"name": "Pay Team"}, user="admin"), 422)
    assert_problem(api.post("/teams", json={"name": "ops"}, user="alice"), 403)  # TEAMS_BY_MEMBERS off
    me = api.get("/users/me", user="alice").json["can"]  # what she may create, as the service decides it
    assert me == {"create": True, "createTeams": False, "manageUsers": False}
    app.config["TEAMS_BY_MEMBERS"] = True
    assert api.get("/users/me", user="alice").json["can"]["createTeams"]
    assert api.get("/users/me", user="victor").json["can"] == {
        "create": False,
        "createTeams": False,
        "manageUsers": False,
    }
    assert api.get("/users/me", user="admin").json["can"] == {"create": True, "createTeams": True, "manageUsers": True}
    ops = api.post("/teams", json={"name": "ops"}, user="alice")
    assert ops.status == 201 and ops.json["members"][0]["username"] == "alice"
    assert_problem(api.post("/teams", json={"name": "viewers"}, user="victor"), 403)  # the global role is a ceiling
    assert [t["name"] for t in api.get("/teams", user="alice").json["items"]] == ["ops"]
    assert [(t["name"], t["role"]) for t in api.get("/teams", user="admin").json["items"]] == [
        ("ops", None),
        ("pay", "maintainer"),
    ]
    assert api.get("/teams", user="bob").json["items"] == []
    assert_problem(api.get("/teams/pay", user="alice"), 404)  # not in it: as if there were none
    assert api.get("/teams/ops", user="alice").json["role"] == "maintainer"


def test_members_are_managed_by_maintainers_and_a_team_keeps_one(api, team):
    member = api.put("/teams/pay/members/alice", json={"role": "maintainer"}, user="admin")
    assert member.status == 200 and member.json == {"username": "alice", "role": "maintainer", "origin": "manual"}
    assert_problem(api.put("/teams/pay/members/carol", json={"role": "member"}, user="bob"), 403)  # a member
    assert api.put("/teams/pay/members/carol", json={"role": "member"}, user="alice").status == 200
    assert_problem(api.put("/teams/pay/members/nobody", json={"role": "member"}, user="alice"), 404)
    assert_problem(api.put("/teams/pay/members/bob", json={"role": "owner"}, user="alice"), 422)
    assert api.put("/teams/pay/members/admin", json={"role": "viewer"}, user="alice").status == 200
    assert_problem(api.put("/teams/pay/members/alice", json={"role": "member"}, user="alice"), 409)  # the last
    assert_problem(api.delete("/teams/pay/members/alice", user="alice"), 409)
    assert_problem(api.delete("/teams/pay/members/carol", user="bob"), 403)
    assert api.delete("/teams/pay/members/bob", user="bob").status == 204  # leaving is one's own
    assert_problem(api.delete("/teams/pay/members/bob", user="alice"), 404)
    roles = {m["username"]: m["role"] for m in api.get("/teams/pay", user="admin").json["members"]}
    assert roles == {"admin": "viewer", "alice": "maintainer", "carol": "member", "victor": "viewer"}
    changed = api.patch("/teams/pay", json={"description": "Payments"}, user="alice")
    assert changed.status == 200 and changed.json["description"] == "Payments"
    assert_problem(api.patch("/teams/pay", json={"name": "renamed"}, user="alice"), 422)  # names never change
    assert_problem(api.patch("/teams/pay", json={"description": "x"}, user="carol"), 403)
    assert_problem(api.patch("/teams/pay", json={"description": "x"}, user="alice", headers={"If-Match": '"1"'}), 412)


@pytest.mark.parametrize("collection", ["profiles", "blueprints"])
def test_on_what_a_team_owns_members_act_as_its_owner_and_viewers_read(api, team, collection):
    made = create(api, collection, user="alice", name="shared", owner="team:pay").json
    path = f"/{collection}/{made['id']}"
    assert made["owner"] == "team:pay"
    for user in ("alice", "bob", "carol", "victor", "admin"):
        assert api.get(path, user=user).status == 200
        listed = api.get(f"/{collection}?owner=team:pay", user=user).json["items"]
        assert [item["id"] for item in listed] == [made["id"]]
    assert_problem(api.get(path, user="dave"), 404)
    assert api.patch(path, json={"name": "renamed"}, user="bob").status == 200  # another member
    assert_problem(api.patch(path, json={"name": "nope"}, user="carol"), 403)  # a team viewer
    assert_problem(api.patch(path, json={"name": "nope"}, user="victor"), 403)
    assert api.patch(path, json={"owner": "team:pay"}, user="bob").status == 200  # the same owner: no change
    assert_problem(api.patch(path, json={"owner": "bob"}, user="bob"), 422)
    assert api.get(f"/{collection}?owner=team:pa", user="alice").json["items"] == []  # exact
    assert api.delete(path, user="bob").status == 204


def test_only_a_member_or_maintainer_creates_as_the_team(api, team):
    assert_problem(api.post("/profiles", json={"name": "x", "owner": "team:pay"}, user="carol"), 403)  # viewer
    assert_problem(api.post("/profiles", json={"name": "x", "owner": "team:ops"}, user="alice"), 403)  # no such
    assert_problem(api.post("/profiles", json={"name": "x", "owner": "bob"}, user="alice"), 403)  # another user
    assert_problem(api.post("/profiles", json={"name": "x", "owner": "team:Pay!"}, user="alice"), 422)
    assert api.post("/profiles", json={"name": "x", "owner": "alice"}, user="alice").status == 201
    # what the team answers says the same (`can.create`), for clients to offer no other owner
    creates = {user: api.get("/teams/pay", user=user).json["can"]["create"] for user in ("alice", "carol", "victor")}
    assert creates == {"alice": True, "carol": False, "victor": False}
    assert api.put("/teams/pay/members/alice", json={"role": "maintainer"}, user="admin").status == 200
    assert api.put("/teams/pay/members/admin", json={"role": "viewer"}, user="admin").status == 200
    assert not api.get("/teams/pay", user="admin").json["can"]["create"]  # an admin creates for a team as its member
    assert_problem(api.post("/profiles", json={"name": "y", "owner": "team:pay"}, user="admin"), 403)


def test_an_import_for_a_team_is_the_teams_shared_as_it_says_and_found_by_its_source_and_key(api, team):
    catalog = {"version": "3", "templates": [{"id": 7, "type": 1, "title": "Cache", "image": "redis:7"}]}
    body = {"format": "portainer", "source": "ops-catalog", "document": catalog, "owner": "team:pay"}
    assert_problem(api.post("/imports", json=body, user="carol"), 403)  # a viewer of the team
    assert_problem(api.post("/imports", json={**body, "owner": "team:ops"}, user="alice"), 403)
    shared = {**body, "defaults": {"entitlementType": "TEAM", "entitledTeams": ["pay"]}}
    report = api.post("/imports", json=shared, user="alice").json
    assert [result["outcome"] for result in report["results"]] == ["created"]
    made = api.get(f"/blueprints/{report['results'][0]['id']}", user="bob").json  # a member acts on it
    assert (made["owner"], made["entitlementType"], made["entitledTeams"]) == ("team:pay", "TEAM", ["pay"])
    assert made["can"]["change"] and not api.get(f"/blueprints/{made['id']}", user="carol").json["can"]["change"]
    again = api.post("/imports", json=shared, user="bob").json  # the team's import, whoever runs it again
    assert [result["outcome"] for result in again["results"]] == ["unchanged"]
    found = api.get("/blueprints?source=ops-catalog&sourceKey=7", user="carol").json["items"]
    assert [item["id"] for item in found] == [made["id"]]
    assert api.get("/blueprints?source=ops-catalog&sourceKey=8", user="alice").json["items"] == []
    assert api.get("/blueprints?sourceKey=7", user="dave").json["items"] == []  # not dave's to read
    assert_problem(api.get("/blueprints?source=", user="alice"), 422)


def test_leaving_a_team_takes_its_rights_at_the_next_request(api, team):
    budget = profile(api, owner="team:pay")
    path = f"/profiles/{budget['id']}"
    assert api.get(path, user="bob").status == 200
    assert api.delete("/teams/pay/members/bob", user="admin").status == 204
    assert_problem(api.get(path, user="bob"), 404)
    assert api.get("/profiles?owner=team:pay", user="bob").json["items"] == []
    assert_problem(api.post("/profiles", json={"name": "y", "owner": "team:pay"}, user="bob"), 403)


def test_a_teams_instance_outlives_its_deployer_and_is_the_members_alone(api, team):
    budget = profile(api, owner="team:pay")
    made = blueprint(api, owner="team:pay", entitlementType="OWNER")
    shop = deploy(api, made, budget, owner="team:pay")
    assert shop.status == 201 and shop.json["owner"] == "team:pay"
    path = f"/instances/{shop.json['id']}"
    assert api.get(f"{path}/yml", user="bob").status == 200
    refused = assert_problem(api.get(f"{path}/yml", user="carol"), 404)  # a viewer never reads its secrets
    assert refused["detail"].startswith("No definition of this instance is yours to read")
    assert_problem(api.get(f"{path}/yml", user="dave"), 404)  # who may not read the instance learns nothing
    assert api.get(path, user="carol").status == 200
    assert_problem(api.delete(path, user="carol"), 403)
    assert api.delete("/teams/pay/members/alice", user="admin").status == 204  # the deployer leaves
    assert_problem(api.get(path, user="alice"), 404)
    upgraded = api.post(f"{path}/upgrade", json={}, user="bob")
    assert upgraded.status == 200, upgraded.json
    assert api.delete(path, user="bob").status == 204
    assert api.get(f"/profiles/{budget['id']}", user="bob").json["usage"]["instances"] == 0


def test_a_team_instance_name_is_the_teams_once(api, team):
    budget = profile(api, owner="team:pay")
    made = blueprint(api, entitlementType="PUBLIC")
    assert deploy(api, made, budget, owner="team:pay").status == 201
    taken = assert_problem(deploy(api, made, budget, user="bob", owner="team:pay"), 409)
    assert "team:pay" in taken["detail"]
    assert deploy(api, made, budget, user="bob").status == 201  # bob's own name space


def test_entitled_teams_share_a_profile_members_deploy_and_viewers_read(api, team):
    budget = profile(api, user="admin", entitledTeams=["pay", "pay"])
    assert budget["entitledTeams"] == ["pay"]
    made = blueprint(api, user="admin", entitlementType="PUBLIC")
    assert api.get(f"/profiles/{budget['id']}", user="carol").status == 200
    assert_problem(deploy(api, made, budget, user="carol"), 403)  # a team viewer
    assert deploy(api, made, budget, user="bob").status == 201
    assert_problem(api.patch(f"/profiles/{budget['id']}", json={"name": "mine"}, user="bob"), 403)  # not its owner
    assert_problem(api.get(f"/profiles/{budget['id']}", user="dave"), 404)  # in no team it names
    unknown = assert_problem(api.post("/profiles", json={"name": "z", "entitledTeams": ["ops"]}, user="alice"), 422)
    assert "entitledTeams" in unknown["errors"] and "ops" not in str(unknown)  # which teams exist is not hers to learn
    told = assert_problem(api.post("/profiles", json={"name": "z", "entitledTeams": ["ops"]}, user="admin"), 422)
    assert "No such team: ops" in str(told)


def test_a_team_blueprint_is_read_by_the_team_and_deployed_by_its_members(api, team):
    made = blueprint(api, user="admin", entitlementType="TEAM", entitledTeams=["pay"])
    budget = profile(api, user="bob")
    path = f"/blueprints/{made['id']}"
    assert api.get(path, user="carol").status == 200 and api.get(path, user="bob").status == 200
    assert_problem(api.get(path, user="dave"), 404)
    assert deploy(api, made, budget, user="bob").status == 201
    carols = profile(api, user="carol")
    assert_problem(deploy(api, made, carols, user="carol"), 403)
    assert api.delete("/teams/pay/members/bob", user="admin").status == 204
    assert_problem(api.get(path, user="bob"), 404)
    listed = api.get("/blueprints?entitlementType=TEAM", user="carol").json["items"]
    assert [item["id"] for item in listed] == [made["id"]]
    wrong = assert_problem(
        api.patch(path, json={"entitlementType": "OWNER", "entitledTeams": ["pay"]}, user="admin"), 422
    )
    assert "entitledTeams" in wrong["errors"]
    custom = api.patch(path, json={"entitlementType": "CUSTOM", "entitledUsers": ["bob"]}, user="admin").json
    assert custom["entitledTeams"] == ["pay"]  # kept with CUSTOM
    assert api.patch(path, json={"entitlementType": "OWNER"}, user="admin").json["entitledTeams"] == []
    assert_problem(api.get(path, user="carol"), 404)


def test_a_team_is_deleted_only_when_nothing_is_its_or_names_it(api, team):
    budget = profile(api, owner="team:pay")
    assert_problem(api.delete("/teams/pay", user="alice"), 403)  # a member
    assert_problem(api.delete("/teams/pay", user="admin"), 409)
    assert api.delete(f"/profiles/{budget['id']}", user="alice").status == 204
    shared = profile(api, user="bob", entitledTeams=["pay"])
    assert_problem(api.delete("/teams/pay", user="admin"), 409)
    assert api.patch(f"/profiles/{shared['id']}", json={"entitledTeams": []}, user="bob").status == 200
    assert api.delete("/teams/pay", user="admin").status == 204
    assert_problem(api.get("/teams/pay", user="admin"), 404)


def test_a_teams_namespace_on_a_cluster_is_labelled_with_the_team(api, team):
    budget = profile(api, owner="team:pay")
    made = blueprint(api, entitlementType="PUBLIC")
    shop = deploy(api, made, budget, name="shop", owner="team:pay", target="kubernetes")
    assert shop.status == 201, shop.json
    stream = api.get(f"/instances/{shop.json['id']}/yml", user="bob").body
    assert taken_by_kubernetes(stream.decode())  # the label as Kubernetes' own types read it
    objects = [one for one in yaml.safe_load_all(stream) if one]
    namespace = next(one for one in objects if one["kind"] == "Namespace")
    assert namespace["metadata"]["labels"]["app.kubernetes.io/part-of"] == "pay"
    mine = deploy(api, made, profile(api, user="bob"), name="mine", user="bob", target="kubernetes")
    objects = [one for one in yaml.safe_load_all(api.get(f"/instances/{mine.json['id']}/yml", user="bob").body) if one]
    assert "app.kubernetes.io/part-of" not in next(o for o in objects if o["kind"] == "Namespace")["metadata"]["labels"]


def test_a_user_is_in_at_most_twenty_teams(api):
    for n in range(21):
        assert api.post("/teams", json={"name": f"t{n}"}, user="admin").status == 201
    for n in range(20):
        assert api.put(f"/teams/t{n}/members/alice", json={"role": "viewer"}, user="admin").status == 200
    full = assert_problem(api.put("/teams/t20/members/alice", json={"role": "viewer"}, user="admin"), 409)
    assert "at most 20 teams" in full["detail"]
    assert len(api.get("/teams", user="alice").json["items"]) == 20


def test_a_team_ends_whole_nothing_it_owned_or_held_outlives_it(api, app, team):
    """A team that owned a source (with its token) or had a namespace held for it was deleted, and a
    team made again under its name took both over."""
    app.config.update(SOURCE_HOSTS=("127.0.0.1:9",), SOURCE_PRIVATE=True)
    body = {"url": "https://127.0.0.1:9/pay.git", "format": "dokploy", "token": "pay-token", "owner": "team:pay"}
    followed = api.post("/sources", json=body, user="alice")
    assert followed.status == 201, followed.json
    assert "sources" in assert_problem(api.delete("/teams/pay", user="admin"), 409)["detail"]
    assert api.delete(f"/sources/{followed.json['id']}", user="alice").status == 204
    shop = deploy(
        api,
        blueprint(api, entitlementType="PUBLIC"),
        profile(api, owner="team:pay"),
        name="shop",
        owner="team:pay",
        target="kubernetes",
    )
    assert shop.status == 201, shop.json
    assert api.delete(f"/instances/{shop.json['id']}", user="alice").status == 204
    assert api.delete(f"/profiles/{shop.json['profile']}", user="alice").status == 204
    held = assert_problem(api.delete("/teams/pay", user="admin"), 409)["detail"]
    assert "the namespace 'shop'" in held
    assert api.delete("/namespaces/shop", user="admin").status == 204  # an admin releases it
    assert api.delete("/teams/pay", user="admin").status == 204
