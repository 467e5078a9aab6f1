"""The API's plumbing: flask-smorest's Api and Blueprint with the document's settings
(openapi.py), bodies and query strings in the contract's order of checks (parser.py), JSON in
and out (json_provider.py), ETags and preconditions (preconditions.py), Idempotency-Key and dry
runs (idempotency.py), every problem body and the error handlers (problems.py), the headers of
every response (response_headers.py), /docs (docs.py). May import app.ops, app.access and what
is below them."""
