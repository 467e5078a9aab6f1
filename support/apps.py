"""Apps for tests and benchmarks: every setting at its default, whatever the environment holds
(so exported settings cannot change what they see), with a fast password hash, and the test
users."""

import contextlib
import functools
import itertools
import tempfile
import threading

import mongomock
from werkzeug.serving import make_server

from app import config, create_app
from app.access.users import store as users
from app.storage import embedded
from support.http import PASSWORD
from support.ports import free_port

FAST_HASH = "pbkdf2:sha256:1000"  # the same code path as scrypt, without 100 ms a request
USERS = {"admin": "admin", "alice": "member", "bob": "member", "carol": "member", "victor": "viewer"}


def settings(**extra):
    """The defaults of every setting, whatever the environment holds, with test speed-ups."""
    return {
        **config.from_env({}),
        "TESTING": True,
        "PASSWORD_HASH_METHOD": FAST_HASH,
        "RATE_LIMIT": "100000 per minute",
        **extra,
    }


def add_users(app):
    with app.app_context():
        for name, role in USERS.items():
            users.create(name, PASSWORD, role)


_names = itertools.count()
_ONE_AT_A_TIME = threading.RLock()


def _one_at_a_time(method):
    @functools.wraps(method)
    def serialized(*args, **kwargs):
        with _ONE_AT_A_TIME:
            return method(*args, **kwargs)

    return serialized


def _serialize_mongomock():
    """mongomock applies an update to a stored document field by field, and copies documents that
    another thread may be changing: a job's thread and a request's saw a job `done` without its
    report, and an update failed with "dictionary changed size during iteration". Its operations
    are made one at a time, as a database makes each single-document write whole."""
    collection = mongomock.collection.Collection
    for name, member in list(vars(collection).items()):
        if not name.startswith("_") and callable(member):
            setattr(collection, name, _one_at_a_time(member))
    cursor = mongomock.collection.Cursor
    cursor._compute_results = _one_at_a_time(cursor._compute_results)


_serialize_mongomock()


def database_name(prefix="test"):
    """A database name no other app of this test run has."""
    return f"{prefix}{next(_names)}"


def make_app(backend, mongo_uri=None, **extra):
    """An app with the test users, on mongomock or on the database at `mongo_uri`."""
    if backend == "mongomock":
        app = create_app(settings(**extra), mongo_client=mongomock.MongoClient(tz_aware=True))
    else:
        app = create_app(settings(MONGO_URI=mongo_uri, MONGO_DB=database_name(), **extra))
    add_users(app)
    app.backend = backend
    return app


@contextlib.contextmanager
def embedded_database():
    """The URI of an embedded database in a process of its own, on a folder that goes with it (in
    this process, a profiler would count the database's thread, and mongomock scans a collection
    for every read)."""
    with tempfile.TemporaryDirectory(prefix="embedded-") as folder:
        process, uri = embedded.launch(folder, free_port())
        try:
            yield uri
        finally:
            process.kill()
            process.wait()


@contextlib.contextmanager
def serving(app):
    """The app on a real socket (a threaded server on a free loopback port); yields the port. On
    exit it waits for the requests still running (a client that gave up on a long import), so
    that none goes on into the next test."""
    server = make_server("127.0.0.1", 0, app, threaded=True)
    server.daemon_threads = False  # tracked, so that server_close joins them
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True)
    thread.start()
    try:
        yield server.server_port
    finally:
        server.shutdown()
        thread.join()
        server.server_close()
