"""Who is calling, and may they: credentials and roles (auth.py, the one gate of every endpoint),
accounts and bearer tokens (users.py, tokens.py), failed-login throttling and the request quota
(login_throttle.py, request_quota.py). May import app.storage and what is below it."""
