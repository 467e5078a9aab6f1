"""gunicorn settings. Without MONGO_URI the master starts the embedded database once, before the
workers fork, and they reach it through MONGO_URI; it is stopped when the master exits."""
import os

from app import embedded
from app.config import from_env

bind = f"{os.environ.get('HOST', '127.0.0.1')}:{os.environ.get('PORT', '8000')}"
workers = int(os.environ.get("WEB_CONCURRENCY", "2"))
loglevel = os.environ.get("LOG_LEVEL", "info").lower()
timeout = 30
graceful_timeout = 20


def on_starting(server):
    if not os.environ.get("MONGO_URI"):
        os.environ["MONGO_URI"] = embedded.start(from_env()["DATA_DIR"])


def on_exit(server):
    embedded.stop()
