"""`can` on every profile, blueprint, instance and team answered: what the caller may do, by the
rule that decides each request. Each flag is checked against the request it stands for (a dry run
where there is one), for the team's maintainer, members, viewers, someone outside it, an admin and
a global viewer, so that a client showing an action only where `can` allows it shows exactly the
actions that would succeed."""

import pytest

from support.http import PASSWORD, create

COMPOSE = "services:\n  web:\n    image: nginx:1.27\n    mem_limit: 64m\n    cpus: 0.1\n"
CALLERS = ("admin", "alice", "bob", "carol", "victor", "dave")


@pytest.fixture
def owned(api):
    """What the team `pay` owns (alice maintains it, bob is a member, carol and victor, a global viewer,
    are its viewers, dave is in no team): a profile, a PUBLIC blueprint, a blueprint shared with the
    team alone, and an instance; and the admin's profile every user may spend from."""
    assert api.post("/users", json={"username": "dave", "password": PASSWORD, "role": "member"}, user="admin")
    assert api.post("/teams", json={"name": "pay"}, user="admin").status == 201
    roles = (("alice", "maintainer"), ("bob", "member"), ("carol", "viewer"), ("victor", "viewer"))
    for username, role in roles:
        assert api.put(f"/teams/pay/members/{username}", json={"role": role}, user="admin").status == 200
    team = {"owner": "team:pay"}
    profile = create(api, "profiles", user="bob", name="budget", memoryCap="4Gi", cpuCap="4", **team).json
    public = create(
        api, "blueprints", user="bob", name="web", blueprintType="compose", yml=COMPOSE, entitlementType="PUBLIC"
    ).json
    shared = create(api, "blueprints", user="bob", name="pay-web", blueprintType="compose", yml=COMPOSE, **team).json
    body = {"name": "shop", "blueprint": shared["id"], "profile": profile["id"], **team}
    instance = api.post("/instances", json=body, user="bob")
    assert instance.status == 201, instance.json
    spend = create(api, "profiles", user="admin", name="everyone's", entitledUsers=list(CALLERS[1:])).json
    return {"profile": profile, "public": public, "shared": shared, "instance": instance.json, "spend": spend}


def can(api, path, user):
    read = api.get(path, user=user)
    return read.json["can"] if read.status == 200 else None


def succeeds(answer):
    return answer.status in (200, 201, 204)


def test_a_profiles_and_a_blueprints_can_says_which_change_and_deploy_succeed(api, owned):
    for user in CALLERS:
        for path, kind in (("profiles", "profile"), ("blueprints", "shared"), ("blueprints", "public")):
            doc = owned[kind]
            flags = can(api, f"/{path}/{doc['id']}", user)
            if flags is None:  # not read: nothing to show
                assert user == "dave" and kind != "public"
                continue
            changed = api.patch(f"/{path}/{doc['id']}?dryRun=true", json={"name": doc["name"]}, user=user)
            assert flags["change"] == flags["delete"] == succeeds(changed), (user, kind, changed.json)
            named = {"profile": doc["id"], "blueprint": owned["public"]["id"]}
            if kind != "profile":
                named = {"blueprint": doc["id"], "profile": owned["spend"]["id"]}
            deployed = api.post("/instances?dryRun=true", json={"name": f"try-{user}", **named}, user=user)
            assert flags["deploy"] == succeeds(deployed), (user, kind, deployed.json)
    assert can(api, f"/blueprints/{owned['public']['id']}", "dave") == {
        "change": False,
        "delete": False,
        "deploy": True,
    }
    assert can(api, f"/blueprints/{owned['public']['id']}", "victor")["deploy"] is False  # the global role a ceiling


def test_an_instances_can_says_which_upgrade_and_definition_read_succeed(api, owned):
    instance = owned["instance"]
    for user in CALLERS:
        flags = can(api, f"/instances/{instance['id']}", user)
        if flags is None:
            assert user == "dave"
            continue
        upgraded = api.post(f"/instances/{instance['id']}/upgrade?dryRun=true", json={}, user=user)
        assert flags["change"] == flags["delete"] == succeeds(upgraded), (user, upgraded.json)
        assert flags["readYml"] == succeeds(api.get(f"/instances/{instance['id']}/yml", user=user)), user
    listed = api.get("/instances", user="carol").json["items"]
    assert [item["can"] for item in listed] == [{"change": False, "delete": False, "readYml": False}]
    assert instance["can"] == {"change": True, "delete": True, "readYml": True}  # the create's answer carries it


def test_a_teams_can_says_who_manages_it_and_who_creates_as_it(api, owned):
    for user in CALLERS:
        read = api.get("/teams/pay", user=user)
        if read.status != 200:
            assert user == "dave"
            continue
        changed = api.patch("/teams/pay", json={"description": "Payments"}, user=user)
        made = api.post("/profiles?dryRun=true", json={"name": "x", "owner": "team:pay"}, user=user)
        assert read.json["can"] == {"manage": succeeds(changed), "create": succeeds(made)}, (user, made.json)
    assert [team["can"] for team in api.get("/teams", user="bob").json["items"]] == [{"manage": False, "create": True}]


def test_what_a_user_may_create_is_what_their_creates_get(api, owned, app):
    for by_members in (False, True):
        app.config["TEAMS_BY_MEMBERS"] = by_members
        for user in CALLERS:
            flags = api.get("/users/me", user=user).json["can"]
            made = api.post("/profiles?dryRun=true", json={"name": "x"}, user=user)
            team = api.post("/teams", json={"name": f"t-{user}-{int(by_members)}"}, user=user)
            assert flags["create"] == succeeds(made) and flags["createTeams"] == succeeds(team), (user, by_members)
            assert flags["manageUsers"] == succeeds(api.get("/users", user=user)), user
