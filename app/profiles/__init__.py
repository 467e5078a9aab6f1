"""Profiles: named sets of resource caps; at most one per owner is the default. A profile is read
with its usage and the ledger of the changes of it under way, kept in a document of their own
(storage.py; ledgers.py that document; usage.py the arithmetic). Its schemas and its store; its
routes are app/api/profiles.py."""
