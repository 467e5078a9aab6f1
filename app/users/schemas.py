"""The user and token bodies, and the rules of usernames, passwords and roles."""

import marshmallow as ma

from app.model.fields import Id, Pattern, Timestamp
from app.model.schemas import Schema

ROLES = ("viewer", "member", "admin")
USERNAME = Pattern(r"[A-Za-z0-9_.@-]{3,64}", error="3-64 characters of letters, digits, _ . @ -")
PASSWORD = ma.validate.Length(8, 1024)


def Username(**kwargs):
    return ma.fields.String(validate=USERNAME, **kwargs)


class UserSchema(Schema):
    id = Id()
    username = Username(required=True)
    password = ma.fields.String(required=True, load_only=True, validate=PASSWORD)
    role = ma.fields.String(required=True, validate=ma.validate.OneOf(ROLES))
    disabled = ma.fields.Boolean(dump_only=True)
    createdAt = Timestamp()


class TokenSchema(Schema):
    token = ma.fields.String(dump_only=True)
    expiresAt = Timestamp()
