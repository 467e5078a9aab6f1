"""Teams: a name, its members and their roles (storage.py), and their bodies (schemas.py). A
caller's roles are read here once a request; a team owns profiles, blueprints and instances,
which it knows only through what app/joins/ asks of them. May import app.storage and what is
below it."""
