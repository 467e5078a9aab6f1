"""A blueprint's body schema on its own: trimming, normalizing, strict booleans, bad values."""

import pytest

from app.blueprints.schemas import BlueprintSchema
from support.schemas import errors_of


@pytest.mark.parametrize("value", ["true", 1, 0, "yes", None])
def test_booleans_are_json_booleans_only(value):
    assert "inactive" in errors_of(BlueprintSchema, {"inactive": value})


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
