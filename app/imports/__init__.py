"""Imports and exports: other tools' catalogs (Portainer app templates, OpenShift templates, the
self-hosted platforms', a Compose file with its `.env`, a Kubernetes quota) brought in as
blueprints with parameters (a quota as a profile), and the service's own format out and back in.
Each format is a module whose `candidates(document, files, defaults)` maps a document to
Candidates, listed once in formats.py; workflow.py writes them one by one; app/api/imports.py
serves /imports and /exports. The mapping choices, and what each format loses: docs/imports.md."""
