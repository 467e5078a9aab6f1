"""Accounts: the rules of usernames, passwords and roles, what each role implies, and the
user and token bodies."""

import marshmallow as ma

from app.model.fields import Id, Pattern, Timestamp
from app.model.schemas import Schema

ROLES = ("viewer", "member", "admin")
IMPLIED_ROLES = {"viewer": ["viewer"], "member": ["viewer", "member"], "admin": ["viewer", "member", "admin"]}
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


def is_admin(user):
    return user["role"] == "admin"
