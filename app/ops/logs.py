"""Structured logs: JSON lines on stderr, and one line per request with what an operator needs
to follow it (method, route, status, duration, user, request id). Never a header, a body or a
query string, so no password, token or cursor reaches the logs."""

import logging
import logging.config
import os
import re

from flask import g, request

from app.access.auth import current_user
from app.ops.metrics import route

access = logging.getLogger("app.requests")
_REQUEST_ID = re.compile(r"[A-Za-z0-9._:-]{1,128}")


def request_id():
    """The caller's X-Request-ID when it is 1-128 safe characters, else a new one; one per request,
    in its log line, its problem body and its `X-Request-ID` header."""
    found = g.get("request_id")
    if found is None:
        given = request.headers.get("X-Request-ID", "")
        found = g.request_id = given if _REQUEST_ID.fullmatch(given) else os.urandom(16).hex()  # uuid4's randomness
    return found


def dict_config(level):
    """Every logger of the process, gunicorn's included, as JSON lines on stderr."""
    stderr = {"class": "logging.StreamHandler", "formatter": "json", "stream": "ext://sys.stderr"}
    return {
        "version": 1,
        "disable_existing_loggers": False,
        "formatters": {
            "json": {
                "()": "pythonjsonlogger.json.JsonFormatter",
                "fmt": "%(asctime)s %(levelname)s %(name)s %(message)s",
                "rename_fields": {"asctime": "time", "levelname": "level", "name": "logger"},
            }
        },
        "handlers": {"stderr": stderr},
        "root": {"level": level.upper(), "handlers": ["stderr"]},
        "loggers": {
            name: {"level": level.upper(), "handlers": ["stderr"], "propagate": False}
            for name in ("gunicorn.error", "gunicorn.access")
        },
    }


def configure(level):
    """For the development server and the CLI; under gunicorn, gunicorn.conf.py does it."""
    if not logging.getLogger().handlers:
        logging.config.dictConfig(dict_config(level))


def log_request(response, elapsed):
    if not access.isEnabledFor(logging.INFO):  # LOG_LEVEL=warning: not even the line's parts
        return
    user = current_user()
    access.info(
        "request",
        extra={
            "method": request.method,
            "route": route(),
            "path": request.path,
            "status": response.status_code,
            "duration_ms": round(elapsed * 1000, 2),
            "user": user["username"] if user else None,
            "request_id": request_id(),
            "remote_addr": request.remote_addr,
        },
    )
