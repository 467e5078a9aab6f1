"""The database: the connection and the embedded server (database.py, embedded.py), ids ordered
by time (ids.py), the store every owned, versioned resource shares (resource_store.py), the keys
every list is found by and which of them a list reads (list_keys.py), a page read in windows of
ids (pages.py), and the small pieces they use (cache.py, counters.py). May import
app.definitions, app.model, app.errors, app.config."""
