"""Who is calling, and may they: credentials and roles (auth.py, the one gate of every endpoint),
bearer tokens (tokens.py) over the accounts of app/users/storage.py, failed-login throttling and
the request quota (login_throttle.py, request_quota.py). May import app.storage, app.users'
storage and schemas, and what is below them."""
