"""entitledUsers: existing users only, only with CUSTOM, cleared when a blueprint leaves CUSTOM."""

import pytest

from app.blueprints.storage import entitlement_changes
from app.errors import Invalid
from support.http import assert_problem, create


def test_422_for_entitled_users_rules(api):
    body = {"entitlementType": "CUSTOM", "entitledUsers": ["bob", "ghost1", "carol"]}
    unknown = assert_problem(api.post("/blueprints", json=body, user="alice"), 422)
    assert unknown["errors"]["entitledUsers"] == ["Not every name is a user."]  # which names exist is not said
    dry = assert_problem(api.post("/blueprints?dryRun=true", json=body, user="alice"), 422)
    assert dry["errors"] == unknown["errors"]
    told = assert_problem(api.post("/blueprints", json=body, user="admin"), 422)  # admins may know
    assert told["errors"]["entitledUsers"] == ["Not every name is a user. No such user: ghost1."]
    many = {**body, "entitledUsers": [f"user{index}" for index in range(101)]}
    too_many = assert_problem(api.post("/blueprints", json=many, user="alice"), 422)
    assert too_many["errors"]["entitledUsers"] == ["Longer than maximum length 100."]
    not_custom = api.post("/blueprints", json={"entitlementType": "PUBLIC", "entitledUsers": ["bob"]}, user="alice")
    assert "entitledUsers" in assert_problem(not_custom, 422)["errors"]


def test_changing_entitled_users_changes_who_may_read(api):
    path = f"/blueprints/{create(api, 'blueprints', entitlementType='CUSTOM', entitledUsers=['bob']).json['id']}"
    assert api.get(path, user="bob").status == 200
    r = api.patch(path, json={"entitledUsers": ["carol", "carol"]}, user="alice")
    assert r.json["entitledUsers"] == ["carol"] and api.get(path, user="bob").status == 404
    assert_problem(api.patch(path, json={"entitledUsers": ["ghost99"]}, user="alice"), 422)
    r = api.patch(path, json={"entitlementType": "public"}, user="alice")
    assert r.json["entitlementType"] == "PUBLIC" and r.json["entitledUsers"] == []
    problem = assert_problem(api.patch(path, json={"entitledUsers": ["bob"]}, user="alice"), 422)
    assert "entitledUsers" in problem["errors"]
    r = api.patch(path, json={"entitlementType": "CUSTOM", "entitledUsers": ["bob"]}, user="alice")
    assert r.status == 200 and r.json["entitledUsers"] == ["bob"]


def test_a_blueprint_without_entitled_users_costs_no_user_lookup(api, monkeypatch):
    from app.access.users import store as users

    def looked_up(names):
        raise AssertionError(f"looked up {names}")

    monkeypatch.setattr(users, "missing", looked_up)
    assert api.post("/blueprints", json={"entitlementType": "PUBLIC"}, user="alice").status == 201
    assert api.post("/blueprints", json={"entitlementType": "CUSTOM"}, user="alice").status == 201


def test_entitled_users_only_with_custom():
    with pytest.raises(Invalid) as info:
        entitlement_changes({"entitlementType": "PUBLIC", "entitledUsers": ["alice"]})
    assert "entitledUsers" in info.value.errors
    assert entitlement_changes({"entitlementType": "OWNER", "entitledUsers": None})["entitledUsers"] == []
    assert entitlement_changes({"entitlementType": "CUSTOM", "entitledUsers": ["a1c", "bob", "a1c"]}) == {
        "entitlementType": "CUSTOM",
        "entitledUsers": ["a1c", "bob"],
        "entitledTeams": [],
    }
    with pytest.raises(Invalid) as info:
        entitlement_changes({"entitlementType": "PUBLIC", "entitledTeams": ["pay"]})
    assert "entitledTeams" in info.value.errors
    assert entitlement_changes({"entitlementType": "TEAM", "entitledTeams": ["pay", "pay"]})["entitledTeams"] == ["pay"]


def test_leaving_custom_clears_entitled_users():
    stored = {"entitlementType": "CUSTOM", "entitledUsers": ["bob"]}
    assert entitlement_changes({"entitlementType": "PUBLIC"}, stored)["entitledUsers"] == []
    assert "entitledUsers" not in entitlement_changes({"name": "x"}, stored)
