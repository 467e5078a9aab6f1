"""The contract's values, the bottom of the tree: field types and the strict base schema
(fields.py, schemas.py), quantities (the caps' grammar, Docker's and Kubernetes'), safe YAML
(yamlguard.py), and accounts (usernames, passwords, roles). May import only app.errors and
app.config (tests/test_layers.py holds every package to its place)."""
