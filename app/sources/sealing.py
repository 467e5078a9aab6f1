"""A source's credentials at rest: its webhook secret, token and deploy key are sealed (Fernet:
AES and an HMAC) with a key derived from the service's SECRET_KEY, so that a copy of the
database alone does not give them away; they are unsealed only for the sync or the webhook that
uses them, and never answered."""

import base64
import hashlib

from cryptography.fernet import Fernet, InvalidToken
from flask import current_app

SEALED = {"secret": "sealedSecret", "token": "sealedToken", "deployKey": "sealedDeployKey"}  # field -> stored as


def _fernet():
    key = hashlib.sha256(b"sources/" + current_app.config["SECRET_KEY"].encode()).digest()
    return Fernet(base64.urlsafe_b64encode(key))


def sealed(changes):
    """`changes` with each credential it sets (null: none) sealed in its stored field."""
    changes = dict(changes)
    for name, stored in SEALED.items():
        if name in changes:
            value = changes.pop(name)
            changes[stored] = _fernet().encrypt(value.encode()).decode() if value else None
    return changes


def unsealed(doc, name):
    """The credential `name` of the source `doc`, or None; ValueError when it no longer opens
    (SECRET_KEY changed since it was given)."""
    value = doc.get(SEALED[name])
    if value is None:
        return None
    try:
        return _fernet().decrypt(value.encode()).decode()
    except InvalidToken:
        raise ValueError(f"The source's {name} was sealed under another SECRET_KEY: give it again.") from None
