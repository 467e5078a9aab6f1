"""Prometheus metrics. Under gunicorn each worker writes its samples to PROMETHEUS_MULTIPROC_DIR
(set by gunicorn.conf.py) and /metrics sums them, so any worker answers for all."""

import os

from flask import request
from prometheus_client import (
    CONTENT_TYPE_LATEST,
    REGISTRY,
    CollectorRegistry,
    Counter,
    Histogram,
    generate_latest,
    multiprocess,
)

REQUESTS = Counter("http_requests_total", "HTTP requests answered.", ["method", "route", "status"])
LATENCY = Histogram(
    "http_request_duration_seconds",
    "Time to answer a request.",
    ["method", "route", "status"],
    buckets=(0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10),
)
DATABASE_ERRORS = Counter("database_errors_total", "Database operations that failed, by error.", ["error"])


def render():
    registry = REGISTRY
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        registry = CollectorRegistry()
        multiprocess.MultiProcessCollector(registry)
    return generate_latest(registry), CONTENT_TYPE_LATEST


def route():
    """The matched rule ("/profiles/<id>"), never the raw path: label values stay few."""
    rule = request.url_rule
    return rule.rule if rule else "unmatched"


# HTTP's methods; any other is counted as "other", so that no client can add label values at will
METHODS = frozenset({"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"})
_children = {}  # labels -> (REQUESTS', LATENCY's): `labels()` checks and converts at every call


def observe(response, elapsed):
    method = request.method
    labels = (method if method in METHODS else "other", route(), str(response.status_code))
    children = _children.get(labels)
    if children is None:
        children = _children[labels] = (REQUESTS.labels(*labels), LATENCY.labels(*labels))
    children[0].inc()
    children[1].observe(elapsed)
