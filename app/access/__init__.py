"""Who is calling, and may they: the accounts (users.py, users in MongoDB; schemas.py, their
bodies), credentials and roles (auth.py, the one gate of every endpoint), bearer tokens
(tokens.py), failed-login throttling and the request quota (login_throttle.py,
request_quota.py). May import app.storage and what is below it."""
