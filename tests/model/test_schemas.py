"""The body schemas on their own: defaults, trimming, strict booleans, caps, read-only and unknown fields."""

from datetime import UTC, datetime, timedelta, timezone

import marshmallow as ma
import pytest

from app.blueprints.schemas import BlueprintSchema
from app.model.fields import rfc3339
from app.model.schemas import Schema
from app.profiles.schemas import ProfileSchema


def errors_of(schema, data, **kw):
    with pytest.raises(ma.ValidationError) as info:
        schema(**kw).load(data)
    return info.value.messages


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
    assert "inactive" in errors_of(BlueprintSchema, {"inactive": value})


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


def test_blueprint_fields_are_trimmed_and_normalized_on_load():
    data = BlueprintSchema().load(
        {"name": "web", "version": " 1.2 ", "blueprintType": "helm.v3", "yml": "a: 1\n", "entitlementType": "public"}
    )
    assert data["version"] == "1.2" and data["yml"].text == "a: 1\n" and data["entitlementType"] == "PUBLIC"
    assert data["inactive"] is False and data["entitledUsers"] is None


@pytest.mark.parametrize(
    "field, value",
    [
        ("version", "x" * 65),
        ("description", "x" * 10_001),
        ("blueprintType", "has space"),
        ("blueprintType", "x" * 65),
        ("yml", "a: [1"),
        ("entitlementType", "friends"),
        ("entitlementType", None),
        ("entitledUsers", ["ok_name", "no"]),
        ("entitledUsers", "alice"),
    ],
)
def test_blueprint_bad_values(field, value):
    assert field in errors_of(BlueprintSchema, {field: value})


def test_a_missing_field_named_like_a_dicts_method_is_left_out_not_the_method():
    class Kept(Schema):
        values = ma.fields.Raw()
        items = ma.fields.List(ma.fields.String())
        routes = ma.fields.Raw(attribute="requirements.routes")

    assert Kept().dump({}) == {}
    assert Kept().dump({"values": {"a": 1}, "requirements": {"routes": []}}) == {"values": {"a": 1}, "routes": []}


def test_a_timestamp_is_written_in_utc_its_milliseconds_cut_not_rounded():
    moment = datetime(2026, 12, 3, 7, 4, 5, 999_999, tzinfo=timezone(timedelta(hours=2)))
    assert rfc3339(moment) == "2026-12-03T05:04:05.999Z"
    assert rfc3339(moment.replace(tzinfo=None)) == "2026-12-03T07:04:05.999Z"  # naive: taken as UTC
    assert rfc3339(datetime(987, 1, 2, tzinfo=UTC)) == "0987-01-02T00:00:00.000Z"  # RFC 3339: four digits
