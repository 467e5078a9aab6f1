"""Credentials at rest: a source's webhook secret, token and deploy key, an environment's token,
deploy key and TLS client key pair, are sealed (Fernet: AES and an HMAC) with a key derived from
the service's SECRET_KEY and the collection (`sources`, `environments`), so that a copy of the
database alone does not give them away; they are unsealed only for the connection or the
webhook that uses them, and never answered."""

import base64
import hashlib
import json

from cryptography.fernet import Fernet, InvalidToken
from flask import current_app

SEALED = {  # field -> stored as
    "secret": "sealedSecret",
    "token": "sealedToken",
    "deployKey": "sealedDeployKey",
    "tls": "sealedTls",
}


def _fernet(collection):
    key = hashlib.sha256(f"{collection}/".encode() + current_app.config["SECRET_KEY"].encode()).digest()
    return Fernet(base64.urlsafe_b64encode(key))


def sealed(changes, collection="sources"):
    """`changes` with each credential it sets (null: none) sealed in its stored field; a mapping
    (an environment's `tls`) is sealed as its JSON."""
    changes = dict(changes)
    for name, stored in SEALED.items():
        if name in changes:
            value = changes.pop(name)
            text = json.dumps(value) if isinstance(value, dict) else value
            changes[stored] = _fernet(collection).encrypt(text.encode()).decode() if value else None
    return changes


def unsealed(doc, name, collection="sources"):
    """The credential `name` of the document `doc` of `collection`, or None; ValueError when it no
    longer opens (SECRET_KEY changed since it was given)."""
    value = doc.get(SEALED[name])
    if value is None:
        return None
    try:
        text = _fernet(collection).decrypt(value.encode()).decode()
    except InvalidToken:
        noun = collection.removesuffix("s")
        raise ValueError(f"The {noun}'s {name} was sealed under another SECRET_KEY: give it again.") from None
    return json.loads(text) if name == "tls" else text
