"""A profile's body schema on its own: defaults, trimming, strict booleans, caps, read-only and unknown fields."""

import pytest

from app.profiles.schemas import ProfileSchema
from support.schemas import errors_of


def test_empty_profile_gets_defaults():
    assert ProfileSchema().load({}) == {
        "name": None,
        "defaultProfile": False,
        "memoryCap": None,
        "cpuCap": None,
        "containerCap": None,
        "storageCap": None,
        "containerDefaults": None,
        "containerMax": None,
        "entitledUsers": [],
        "entitledTeams": [],
        "podSecurity": "baseline",
        "allowKinds": [],
        "environments": [],
        "cluster": None,
        "prices": None,
    }


def test_partial_load_keeps_only_what_was_sent():
    assert ProfileSchema(partial=True).load({"name": " x "}) == {"name": "x"}


@pytest.mark.parametrize("name", ["", "   ", "x" * 201])
def test_name_length_after_trimming(name):
    assert "name" in errors_of(ProfileSchema, {"name": name})


def test_name_is_trimmed_and_may_be_null():
    assert ProfileSchema().load({"name": "  web  "})["name"] == "web"
    assert ProfileSchema().load({"name": " " + "x" * 198 + " "})["name"] == "x" * 198
    assert ProfileSchema().load({"name": " " + "x" * 200 + " "})["name"] == "x" * 200  # the contract: after trimming
    assert ProfileSchema().load({"name": None})["name"] is None


@pytest.mark.parametrize("value", ["true", 1, 0, "yes", None])
def test_booleans_are_json_booleans_only(value):
    assert "defaultProfile" in errors_of(ProfileSchema, {"defaultProfile": value})


def test_read_only_and_unknown_fields_are_named():
    messages = errors_of(ProfileSchema, {"id": "x", "owner": "y", "createdAt": "z", "limits": {}, "colour": 1})
    assert messages == {
        "id": ["Read-only field."],
        "owner": ["A username, or team:NAME for a team you are a member of."],  # given on create only
        "createdAt": ["Read-only field."],
        "limits": ["Read-only field."],
        "colour": ["Unknown field."],
    }


def test_caps_keep_their_text_and_numbers_become_text():
    data = ProfileSchema().load({"memoryCap": " 1.5Gi ", "cpuCap": 0.5, "containerCap": 4, "storageCap": "10"})
    assert (data["memoryCap"], data["cpuCap"], data["containerCap"], data["storageCap"]) == ("1.5Gi", "0.5", "4", "10")


@pytest.mark.parametrize(
    "field, value",
    [
        ("memoryCap", {}),
        ("memoryCap", True),
        ("memoryCap", "lots"),
        ("cpuCap", -1),
        ("cpuCap", "0.0005"),
        ("containerCap", 1.5),
        ("storageCap", []),
    ],
)
def test_bad_caps_name_the_field(field, value):
    assert field in errors_of(ProfileSchema, {field: value})
