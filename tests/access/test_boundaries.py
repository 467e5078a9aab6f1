"""Who sets what and who reads what, where one tenant could reach another: the operator's fields
of a profile are admins' alone, a global viewer never reads a definition whatever its team role,
and a membership write tells no one who does not manage the team whether a user exists."""

import pytest

from support.http import assert_problem, create

WEB = "services:\n  web:\n    image: nginx:1.27\n    mem_limit: 64m\n    cpus: 0.1\n"
SHEET = "cpu=10,memoryGiB=5,storageGiB=0.1,currency=EUR"


@pytest.fixture
def priced(app):
    app.config.update(PRICES=SHEET)


@pytest.mark.parametrize(
    "fields",
    [
        {"prices": {"cpu": 0, "memoryGiB": 0}},
        {"cluster": {"gateway": "bobs-space/mine"}},
        {"podSecurity": "privileged"},
        {"allowKinds": ["apps/DaemonSet"]},
    ],
)
def test_the_operators_fields_of_a_profile_are_admins_alone_on_create_and_change(api, priced, fields):
    assert_problem(api.post("/profiles", json={"name": "mine", **fields}, user="bob"), 403)
    mine = create(api, "profiles", user="bob", name="mine").json
    assert_problem(api.patch(f"/profiles/{mine['id']}", json=fields, user="bob"), 403)
    assert_problem(api.put(f"/profiles/{mine['id']}", json={"name": "mine", **fields}, user="bob"), 403)
    assert api.patch(f"/profiles/{mine['id']}", json=fields, user="admin").status == 200
    read = api.get(f"/profiles/{mine['id']}", user="bob").json
    echoed = {key: read[key] for key in fields}
    assert api.patch(f"/profiles/{mine['id']}", json=echoed, user="bob").status == 200  # sent back as read


def test_a_members_profile_prices_stay_the_operators_so_the_teams_spend_is_counted(api, priced):
    assert api.post("/teams", json={"name": "pay"}, user="admin").status == 201
    assert api.put("/teams/pay/members/bob", json={"role": "maintainer"}, user="admin").status == 200
    made = api.post("/profiles", json={"name": "free", "owner": "team:pay", "prices": {"cpu": 0}}, user="bob")
    assert_problem(made, 403)
    team = create(api, "profiles", user="bob", name="paid", owner="team:pay").json
    web = create(api, "blueprints", user="bob", name="web", blueprintType="compose", yml=WEB).json
    body = {"name": "web", "blueprint": web["id"], "profile": team["id"], "owner": "team:pay"}
    assert api.post("/instances", json=body, user="bob").status == 201
    assert_problem(api.patch(f"/profiles/{team['id']}", json={"prices": {"cpu": 0}}, user="bob"), 403)
    assert api.get("/teams/pay/spend", user="bob").json["monthly"] > 0


def test_a_global_viewer_never_reads_a_definition_whatever_its_team_role(api):
    assert api.post("/teams", json={"name": "pay"}, user="admin").status == 201
    for name, role in (("alice", "maintainer"), ("victor", "maintainer")):
        assert api.put(f"/teams/pay/members/{name}", json={"role": role}, user="admin").status == 200
    web = create(api, "blueprints", name="web", blueprintType="compose", yml=WEB).json
    team = create(api, "profiles", name="pay", owner="team:pay").json
    body = {"name": "web", "blueprint": web["id"], "profile": team["id"], "owner": "team:pay"}
    made = api.post("/instances", json=body, user="alice").json
    assert api.get(f"/instances/{made['id']}/yml", user="alice").status == 200
    assert api.get(f"/instances/{made['id']}", user="victor").status == 200  # reads it, as a viewer does
    refused = assert_problem(api.get(f"/instances/{made['id']}/yml", user="victor"), 404)
    assert "nginx" not in refused["detail"]
    assert api.delete(f"/instances/{made['id']}", user="victor").status == 403


def test_a_membership_write_tells_who_does_not_manage_the_team_nothing_of_its_users(api):
    assert api.post("/teams", json={"name": "pay"}, user="admin").status == 201
    assert api.put("/teams/pay/members/bob", json={"role": "member"}, user="admin").status == 200
    for team, user in (("pay", "carol"), ("nosuch", "carol")):  # carol is in no team
        answers = [
            api.put(f"/teams/{team}/members/{who}", json={"role": "member"}, user=user) for who in ("alice", "x-no")
        ]
        assert {answer.status for answer in answers} == {404}
        assert len({answer.json["detail"] for answer in answers}) == 1
    answers = [api.put(f"/teams/pay/members/{who}", json={"role": "member"}, user="bob") for who in ("alice", "x-no")]
    assert [answer.status for answer in answers] == [403, 403]  # a member: the same answer for both
    assert_problem(api.put("/teams/pay/members/x-no", json={"role": "member"}, user="admin"), 404)  # who manages it
