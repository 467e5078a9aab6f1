"""Accounts: the rules of usernames, passwords and roles, and what each role implies (the
user and token bodies are app/access/schemas.py)."""

import marshmallow as ma

from app.model.fields import Pattern

ROLES = ("viewer", "member", "admin")
IMPLIED_ROLES = {"viewer": ["viewer"], "member": ["viewer", "member"], "admin": ["viewer", "member", "admin"]}
USERNAME = Pattern(r"[A-Za-z0-9_.@-]{3,64}", error="3-64 characters of letters, digits, _ . @ -")
PASSWORD = ma.validate.Length(8, 1024)


MAX_ENTITLED_USERS = 100


def Username(**kwargs):
    return ma.fields.String(validate=USERNAME, **kwargs)


def EntitledUsers(**kwargs):
    """The users a resource is shared with, beside its owner (they must exist: users.storage)."""
    kwargs.setdefault("allow_none", True)
    return ma.fields.List(Username(), validate=ma.validate.Length(max=MAX_ENTITLED_USERS), **kwargs)


def is_admin(user):
    return user["role"] == "admin"
