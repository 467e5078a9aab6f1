"""Accounts: who may call the service, and with which role.

A resource: routes.py (a MethodView per path) over app/access/users.py and tokens.py, with the
bodies of app/model/accounts.py. May import app.http, app.ops, app.access and what is below them."""
