"""Jobs: long work (a catalog's import, a source's sync, an upgrade of many instances) run beside
the request that starts it, so that none runs into the worker's time limit. A job is a stored
document held under a lease by the thread that runs it (`storage`), started and run by `runner`,
and read at /jobs/{id} (app/api/jobs.py) by its starter, the owner it works for, and admins."""
