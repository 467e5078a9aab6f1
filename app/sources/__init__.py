"""Sources: catalogs followed from git. A source names a repository (`https://` or `ssh://` to a
host the operator allows), a ref, a folder and an import format; a sync fetches the commit at the
ref with the `git` program and imports what it holds as `bpctl import` would, as a job. This
package holds their schemas and store, the fetch (`git`; where it may connect: access/addresses.py), what a
folder holds for each format (`layouts`), the sync (`sync`), the webhook's signatures
(`webhooks`) and the schedule (`schedule`); app/api/sources.py serves them."""
