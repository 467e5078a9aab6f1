"""The bodies of /teams: a team, a membership, and what a team spends."""

import marshmallow as ma

from app.model.accounts import TEAM_ROLES, Can, TeamName, Username
from app.model.fields import Id, Text, Timestamp, Trimmed
from app.model.schemas import Schema


class MemberSchema(Schema):
    username = Username(dump_only=True)
    role = ma.fields.String(
        required=True,
        validate=ma.validate.OneOf(TEAM_ROLES),
        metadata={
            "enum": list(TEAM_ROLES),
            "description": "maintainer: manages the team and what it owns; member: deploys and changes what it "
            "owns; viewer: reads it.",
        },
    )
    origin = ma.fields.String(
        dump_only=True,
        metadata={"enum": ["manual", "sso"], "description": "Given through the API, or by the identity provider."},
    )


class TeamSchema(Schema):
    name = TeamName(required=True, metadata={"description": "Unique; never changes. As an owner: team:NAME."})
    description = Text(validate=Trimmed(max=1_000), load_default=None)
    role = ma.fields.String(
        dump_only=True,
        allow_none=True,
        metadata={"description": "The caller's role in it (null: an admin outside it)."},
    )
    members = ma.fields.List(ma.fields.Nested(MemberSchema), dump_only=True)
    can = Can("manage", "create")
    createdAt = Timestamp()
    updatedAt = Timestamp()


class TeamChangeSchema(Schema):
    description = Text(validate=Trimmed(max=1_000), load_default=ma.missing)


class SpendLineSchema(Schema):
    id = Id()
    name = ma.fields.String()
    monthly = ma.fields.Float(allow_none=True, metadata={"description": "What its usage costs a month."})
    capMonthly = ma.fields.Float(
        allow_none=True,
        metadata={"description": "What its caps would cost a month (null where a priced cap is unset)."},
    )


class SpendSchema(Schema):
    profiles = ma.fields.List(ma.fields.Nested(SpendLineSchema), metadata={"description": "A page of its profiles."})
    monthly = ma.fields.Float(
        allow_none=True, metadata={"description": "Every profile of the team's, summed (null without PRICES)."}
    )
    currency = ma.fields.String(allow_none=True)
    next = ma.fields.String(allow_none=True, metadata={"description": "Cursor of the next page of profiles, or null."})
