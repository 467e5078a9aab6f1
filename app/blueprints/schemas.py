"""The blueprint body and the blueprint list's filters."""

import marshmallow as ma

from app.fields import Id, Name, Pattern, QueryBoolean, StrictBoolean, Text, Timestamp, Yaml
from app.list_filters import ListArgs
from app.schemas import Schema
from app.users.schemas import Username

ENTITLEMENTS = ("OWNER", "PUBLIC", "CUSTOM")
MAX_ENTITLED_USERS = 1000
BLUEPRINT_TYPE = Pattern(r"[A-Za-z0-9_.-]{1,64}", error="1-64 characters of letters, digits, _ - .")


class Entitlement(ma.fields.String):
    """Case-insensitive in, uppercase out."""

    def __init__(self, **kwargs):
        kwargs.setdefault("load_default", "OWNER")
        super().__init__(validate=ma.validate.OneOf(ENTITLEMENTS), metadata={"enum": list(ENTITLEMENTS)}, **kwargs)

    def _deserialize(self, value, attr, data, **kwargs):
        return super()._deserialize(value, attr, data, **kwargs).strip().upper()


class BlueprintSchema(Schema):
    id = Id()
    name = Name()
    version = Text(validate=ma.validate.Length(max=64))
    description = Text(validate=ma.validate.Length(max=10_000))
    blueprintType = Text(validate=BLUEPRINT_TYPE)
    yml = Yaml()
    entitlementType = Entitlement()
    entitledUsers = ma.fields.List(
        Username(), allow_none=True, load_default=None, validate=ma.validate.Length(max=MAX_ENTITLED_USERS)
    )
    inactive = StrictBoolean(load_default=False)
    owner = ma.fields.String(dump_only=True)
    createdAt = Timestamp()
    updatedAt = Timestamp()


class BlueprintQuery(ListArgs):
    blueprintType = ma.fields.String(validate=BLUEPRINT_TYPE)
    entitlementType = Entitlement(load_default=ma.missing)
    inactive = QueryBoolean()
