"""Fixtures. API tests take `api`, which runs them twice: on mongomock through Flask's test client,
and over real sockets (HTTP to a threaded server, pymongo to an embedded SecantusDB); the second
run is marked `socket`. Every app is built from the defaults of app/config.py, never from the
caller's environment, so exported settings cannot change what a test sees."""

import os
import socket

import pytest
from pymongo.errors import AutoReconnect

from app import state
from support import scheduling
from support.apps import make_app, serving
from support.host_network import HostNetwork
from support.http import FlaskClient, SocketClient


def pytest_collection_modifyitems(items):
    """`socket` marks what needs the embedded database, so `make test-fast` can leave it out; then
    the tests go in the order `make test`'s workers take them (support/scheduling.py)."""
    for item in items:
        callspec = getattr(item, "callspec", None)
        if "mongo_server" in item.fixturenames or (callspec and callspec.params.get("app") == "socket"):
            item.add_marker(pytest.mark.socket)
    items[:] = scheduling.ordered(items)


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config, log):
    return scheduling.ByUnit(config, log)


@pytest.fixture(scope="session")
def host_network(tmp_path_factory):
    """The run's lock on the host's network (support/host_network.py), in the folder its workers share."""
    base = tmp_path_factory.getbasetemp()
    return HostNetwork((base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base) / "host-network.lock")


@pytest.fixture(autouse=True)
def _host_network_held(request, host_network):
    """A test on a Docker Engine holds the host's network alone; a test in a browser shares it with
    other browsers' (support/host_network.py)."""
    on_engine = scheduling.on_an_engine(request)
    if not on_engine and request.node.get_closest_marker("browser") is None:
        yield
        return
    with host_network.held(shared=not on_engine):
        yield


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


@pytest.fixture
def socket_app(mongo_server):
    """The app on the embedded database; afterwards its database is dropped and its client closed:
    the shared embedded server slowed with every database left behind (their tables and indexes)
    until requests timed out. The drop is tried again once where pymongo cancelled it, clearing
    its pool when the server, busy dropping a large database, missed a heartbeat."""
    made = make_app("socket", mongo_server.uri)
    yield made
    client = state.of(made).database.client
    try:
        client.drop_database(made.config["MONGO_DB"])
    except AutoReconnect:
        client.drop_database(made.config["MONGO_DB"])
    client.close()


@pytest.fixture(params=["mongomock", "socket"])
def app(request):
    """The app, on mongomock and on the embedded database."""
    if request.param == "mongomock":
        return make_app("mongomock")
    return request.getfixturevalue("socket_app")


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


@pytest.fixture
def listener():
    """A socket listening on a free loopback port that nothing accepts on: a test that checks an
    address before connecting asserts, with `accept()` raising BlockingIOError, that nothing came."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        sock.listen()
        sock.setblocking(False)
        yield sock
