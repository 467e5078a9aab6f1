"""Blueprints: application templates, readable by their owner, everyone, or a named list, and
their history (history/). Their schemas and their store; their fit to a profile is app/budgets/,
their routes app/routes/blueprints.py and app/routes/revisions.py."""
