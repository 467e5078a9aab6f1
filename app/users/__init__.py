"""Accounts: who may call the service, and with which role; bearer tokens.

A resource like the others: routes.py (a MethodView per path), schemas.py (the bodies),
storage.py (users in MongoDB, with salted slow password hashes). storage.py and schemas.py are
what the access layer reads credentials with, so they sit with it, below the resources
(tests/test_layers.py); routes.py may import app.http, app.ops, app.access and what is below."""
