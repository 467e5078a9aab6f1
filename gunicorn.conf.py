"""gunicorn settings for production and for `make run`.

Without MONGO_URI the master starts the embedded database once, before the workers fork, and they
reach it through MONGO_URI; it is stopped when the master exits. The master runs the pending
migrations before the workers start (app/migrations.py). Metrics of all workers meet in
PROMETHEUS_MULTIPROC_DIR, so /metrics answers for the whole server whichever worker serves it.
"""

import gc
import os
import shutil
import tempfile

# Before anything imports prometheus_client, which picks its storage when it is imported.
_own_metrics_dir = not os.environ.get("PROMETHEUS_MULTIPROC_DIR")
if _own_metrics_dir:
    os.environ["PROMETHEUS_MULTIPROC_DIR"] = tempfile.mkdtemp(prefix="prometheus-")

from app.config import from_env, server_from_env  # noqa: E402
from app.ops.logs import dict_config  # noqa: E402
from app.storage import embedded  # noqa: E402

settings, server = from_env(), server_from_env()
bind = f"{server['HOST']}:{server['PORT']}"
# One worker per core: the database shares the cores, and more workers than cores did not help
# (docs/design.md, "The embedded database, measured").
workers = int(server["WEB_CONCURRENCY"] or os.cpu_count() or 2)
timeout = settings["REQUEST_TIMEOUT"]  # a request running longer is killed; idempotency claims outlive it
graceful_timeout = 20  # on SIGTERM, requests in flight get this long to finish
keepalive = 5
# The longest request line gunicorn takes; the longest list URL the documented parameters make
# (name and q of 200 four-byte characters, percent-encoded, with every filter) is about 5,200.
# What gunicorn refuses is answered with a problem body, like every other error.
limit_request_line = 8190
# Forwarded headers are believed as TRUSTED_PROXIES says, by the app's ProxyFix alone: gunicorn's
# own believing of them (from loopback, by default) would let any local client set the scheme or
# the path prefix however the setting reads.
forwarded_allow_ips = "*" if settings["TRUSTED_PROXIES"] else ""
# gunicorn's control socket lives under the data directory, never in the caller's home: two services
# started from two clones on one machine share nothing.
control_socket = os.path.join(os.path.abspath(settings["DATA_DIR"]), "gunicorn.ctl")
worker_class = "app.gunicorn_worker.ProblemWorker"
logger_class = "app.gunicorn_worker.Logger"  # no access line: the app writes the request's one
logconfig_dict = dict_config(settings["LOG_LEVEL"])


def on_starting(server):
    shutil.rmtree(os.environ["PROMETHEUS_MULTIPROC_DIR"], ignore_errors=True)  # no counts from an earlier run
    os.makedirs(os.environ["PROMETHEUS_MULTIPROC_DIR"], exist_ok=True)
    if not os.environ.get("MONGO_URI"):
        os.environ["MONGO_URI"] = embedded.start(settings["DATA_DIR"])
    from app.migrations import before_serving  # the whole app, once: only here, not in every worker

    before_serving(os.environ["MONGO_URI"], settings)


def post_worker_init(worker):
    """Once the app is loaded, what start-up made (modules, schemas, routes) lives as long as the
    worker: frozen out of the garbage collector, the older collections no longer walk it (0.7 % of
    a create's instructions; a larger young threshold saved 2 % more but held 15-37 MB more a
    worker, so the threshold stays Python's: docs/performance.md, "Create after #29"). Then the
    worker's schedule of sources' syncs and environments' observations starts (app/joins/schedule.py)."""
    gc.freeze()
    from app.joins import schedule

    schedule.start(worker.wsgi)


def child_exit(server, worker):
    from prometheus_client import multiprocess

    multiprocess.mark_process_dead(worker.pid)


def on_exit(server):
    embedded.stop()
    if _own_metrics_dir:
        shutil.rmtree(os.environ["PROMETHEUS_MULTIPROC_DIR"], ignore_errors=True)
