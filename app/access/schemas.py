"""The bodies of /users and /tokens: a user (never its password out), a change of one's own
password, a bearer token."""

import marshmallow as ma

from app.model.accounts import PASSWORD, ROLES, Can, Username
from app.model.fields import Id, QueryBoolean, Timestamp
from app.model.schemas import Schema


class UserSchema(Schema):
    id = Id()
    username = Username(required=True)
    password = ma.fields.String(required=True, load_only=True, validate=PASSWORD)
    role = ma.fields.String(required=True, validate=ma.validate.OneOf(ROLES))
    disabled = ma.fields.Boolean(dump_only=True)
    createdAt = Timestamp()
    can = Can("create", "createTeams", "manageUsers")  # /users/me alone


class TokenSchema(Schema):
    token = ma.fields.String(dump_only=True)
    expiresAt = Timestamp()


class PasswordChangeSchema(Schema):
    current = ma.fields.String(required=True, load_only=True, validate=ma.validate.Length(max=1024))
    new = ma.fields.String(required=True, load_only=True, validate=PASSWORD)


class TokensQuery(Schema):
    all = QueryBoolean(
        load_default=False,
        metadata={"description": "true: revoke every token of the caller, whichever credentials this request has."},
    )
