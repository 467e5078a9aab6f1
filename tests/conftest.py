"""Fixtures. API tests take `api`, which runs them twice: on mongomock through Flask's test client,
and over real sockets (HTTP to a threaded server, pymongo to an embedded SecantusDB); the second
run is marked `socket`. Every app is built from the defaults of app/config.py, never from the
caller's environment, so exported settings cannot change what a test sees."""

import contextlib
import itertools
import threading

import mongomock
import pytest
from werkzeug.serving import make_server

from app import create_app
from support.apps import add_users, settings
from support.http import FlaskClient, SocketClient

_db_names = itertools.count()


def pytest_collection_modifyitems(items):
    """`socket` marks what needs the embedded database, so `make test-fast` can leave it out."""
    for item in items:
        callspec = getattr(item, "callspec", None)
        if "mongo_server" in item.fixturenames or (callspec and callspec.params.get("app") == "socket"):
            item.add_marker(pytest.mark.socket)


@pytest.fixture(scope="session")
def mongo_server(tmp_path_factory):
    from secantus import SecantusDBServer

    with SecantusDBServer(
        host="127.0.0.1",
        port=0,
        replica_set_name=None,
        storage_path=str(tmp_path_factory.mktemp("secantus")),
    ) as server:
        yield server


def make_app(backend, mongo_uri=None, **extra):
    """An app with the test users, on mongomock or on the database at `mongo_uri`."""
    if backend == "mongomock":
        app = create_app(settings(**extra), mongo_client=mongomock.MongoClient(tz_aware=True))
    else:
        app = create_app(settings(MONGO_URI=mongo_uri, MONGO_DB=f"test{next(_db_names)}", **extra))
    add_users(app)
    app.backend = backend
    return app


@pytest.fixture(params=["mongomock", "socket"])
def app(request):
    if request.param == "mongomock":
        return make_app("mongomock")
    return make_app("socket", request.getfixturevalue("mongo_server").uri)


@contextlib.contextmanager
def serving(app):
    """The app on a real socket (a threaded server on a free loopback port); yields the port."""
    server = make_server("127.0.0.1", 0, app, threaded=True)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True)
    thread.start()
    try:
        yield server.server_port
    finally:
        server.shutdown()
        thread.join()


@pytest.fixture
def api(app):
    if app.backend == "mongomock":
        yield FlaskClient(app)
        return
    with serving(app) as port:
        yield SocketClient(port)


@pytest.fixture
def live_port(app):
    with serving(app) as port:
        yield port
