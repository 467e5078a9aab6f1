"""Blueprints: application templates, readable by their owner, everyone, or a named list, and
their history (history/). Their schemas and their store; their fit to a profile is app/joins/,
their routes app/api/blueprints.py and app/api/revisions.py."""
