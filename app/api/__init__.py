"""The paths, a module per resource: each route reads its body with a schema, calls a store or
app/joins/ by name, and answers (app/http/crud.py holds what the answers share)."""
