"""What operators see: health and readiness, Prometheus metrics, one JSON log line per request.

Each request is timed once, here, and the same duration goes to the metrics and to the log line,
in that order, whatever order the rest of the app registers its hooks in. May import
app.access (who the caller was, for the log line) and what is below it.
"""

import time

from flask import g

from app.ops import health, logs, metrics

clock = time.perf_counter  # tests replace it to check the duration that is reported


def _start():
    g.started = clock()


def _finish(response):
    started = g.get("started")  # unset only if a hook before _start refused the request
    elapsed = 0.0 if started is None else clock() - started
    metrics.observe(response, elapsed)
    logs.log_request(response, elapsed)
    return response


def init_app(app):
    app.before_request(_start)
    app.after_request(_finish)
    app.register_blueprint(health.blp)
