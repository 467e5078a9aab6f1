"""Settings from the environment, read when an app is created (so tests can set them)."""
import os

MIB = 1024 * 1024


def from_env(environ=os.environ):
    return {
        "MONGO_URI": environ.get("MONGO_URI") or None,
        "MONGO_DB": environ.get("MONGO_DB", "blueprints"),
        "DATA_DIR": environ.get("DATA_DIR", "./var/data"),
        "ADMIN_USERNAME": environ.get("ADMIN_USERNAME") or None,
        "ADMIN_PASSWORD": environ.get("ADMIN_PASSWORD") or None,
        # werkzeug's scrypt (about 100 ms a check here: ../shared/FINDINGS.md)
        "PASSWORD_HASH_METHOD": environ.get("PASSWORD_HASH_METHOD", "scrypt"),
        "MONGO_TIMEOUT_MS": int(environ.get("MONGO_TIMEOUT_MS", "2000")),
        "MAX_CONTENT_LENGTH": MIB,
        # Signs list cursors; unset, a random one is kept in the database and shared by all workers.
        "SECRET_KEY": environ.get("SECRET_KEY") or None,
    }
