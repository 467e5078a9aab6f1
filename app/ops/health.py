"""Probes for load balancers and orchestrators; no credentials, as the contract says."""

from flask import Blueprint, current_app, jsonify
from pymongo.errors import PyMongoError

from app.errors import Unavailable
from app.ops import metrics
from app.storage.database import get_db

blp = Blueprint("ops", __name__)


@blp.route("/healthz")
def healthz():
    """The process serves."""
    return jsonify(status="ok")


@blp.route("/readyz")
def readyz():
    """The database answers a ping within the configured timeout."""
    try:
        get_db().command("ping")
    except PyMongoError as exc:
        metrics.DATABASE_ERRORS.labels(type(exc).__name__).inc()
        raise Unavailable() from exc
    return jsonify(status="ready")


@blp.route("/metrics")
def metrics_page():
    body, content_type = metrics.render()
    return current_app.response_class(body, content_type=content_type)
