"""Imports and exports: other tools' catalogs (Portainer app templates, OpenShift templates, a
Compose file with its `.env`) brought in as blueprints with parameters, and the service's own
format out and back in. Each format module maps a document to Candidates (formats.py picks
it); workflow.py writes them one by one; app/routes/imports.py serves /imports and /exports. The mapping
choices, and what each format loses: docs/imports.md."""
