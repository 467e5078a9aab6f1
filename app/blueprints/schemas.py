import marshmallow as ma

from app.errors import Invalid
from app.fields import Id, Name, Pattern, Schema, StrictBoolean, Text, Timestamp, Yaml
from app.pagination import ListArgs, QueryBoolean
from app.users.schemas import Username

ENTITLEMENTS = ("OWNER", "PUBLIC", "CUSTOM")
MAX_ENTITLED_USERS = 1000


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
    blueprintType = Text(validate=Pattern(r"[A-Za-z0-9_.-]{1,64}", error="1-64 characters of letters, digits, _ - ."))
    yml = Yaml()
    entitlementType = Entitlement()
    entitledUsers = ma.fields.List(Username(), allow_none=True, load_default=None,
                                   validate=ma.validate.Length(max=MAX_ENTITLED_USERS))
    inactive = StrictBoolean(load_default=False)
    owner = ma.fields.String(dump_only=True)
    createdAt = Timestamp()
    updatedAt = Timestamp()


class BlueprintQuery(ListArgs):
    blueprintType = ma.fields.String()
    entitlementType = Entitlement(load_default=ma.missing)
    inactive = QueryBoolean()


def apply_entitlement_rule(changes, stored=None):
    """`entitledUsers` only with CUSTOM; leaving CUSTOM clears it. Names are kept once, in order."""
    kind = changes.get("entitlementType", (stored or {}).get("entitlementType", "OWNER"))
    sent = changes.get("entitledUsers")
    if kind != "CUSTOM":
        if sent:
            raise Invalid({"entitledUsers": ["Allowed only with entitlementType CUSTOM."]})
        changes["entitledUsers"] = []
    elif sent is not None or stored is None:
        changes["entitledUsers"] = list(dict.fromkeys(sent or []))
    return changes
