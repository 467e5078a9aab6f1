"""What operators see: health and readiness, Prometheus metrics, one JSON log line per request."""
from app.ops import health, logs, metrics


def init_app(app):
    logs.init_app(app)
    metrics.init_app(app)
    app.register_blueprint(health.blp)
