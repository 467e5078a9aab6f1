"""An engine over tcp, TLS both ways (support/docker_engine.py, `tls_engine`): delivered to and
observed with the environment's CA and client key pair, never without them; an engine whose
certificate the CA did not sign is not spoken to."""

import pytest

from app.environments.storage import store as environments
from app.joins import observation
from support.apps import serving
from support.certificates import authority
from support.docker_engine import IMAGE, delivered_into, tls_engine  # noqa: F401 (a fixture)
from support.http import SocketClient

pytestmark = pytest.mark.slow
WEB = f"services:\n  web:\n    image: {IMAGE}\n    command: [sleep, '3600']\n    init: true\n"


@pytest.fixture
def api(socket_app, tls_engine):  # noqa: F811
    host = tls_engine.tcp.removeprefix("tcp://")
    socket_app.config.update(ENVIRONMENT_HOSTS=(host,), ENVIRONMENT_PRIVATE=True, DELIVERY_SECONDS=60)
    with serving(socket_app) as port:
        yield SocketClient(port)


def test_an_engine_over_tcp_is_reached_with_tls_alone(api, socket_app, tls_engine):  # noqa: F811
    body = {"name": "remote", "kind": "docker", "endpoint": tls_engine.tcp, "tls": tls_engine.client_tls}
    assert api.post("/environments", json=body, user="admin").status == 201
    shop = delivered_into(api, "remote", "shop", WEB, {"memory": "32Mi"})
    assert shop["delivery"]["state"] == "applied", shop["delivery"]
    assert tls_engine.containers("shop") == {"shop-web-1": (True, 32 * 2**20)}
    with socket_app.app_context():
        observation.observe(environments.named("remote"))
    seen = api.get(f"/instances/{shop['id']}", user="alice").json["observed"]
    assert seen is not None, api.get("/environments?name=remote", user="admin").json["items"][0]["state"]
    assert seen["state"] == "running" and seen["services"][0]["memoryBytes"] == 32 * 2**20

    stranger, pair = authority("another CA")  # an engine this CA did not sign: nothing is sent to it
    cert, key = pair("client", "delivery")
    body = {
        "name": "spoofed",
        "kind": "docker",
        "endpoint": tls_engine.tcp,
        "tls": {"ca": stranger, "cert": cert, "key": key},
    }
    assert api.post("/environments", json=body, user="admin").status == 201
    refused = delivered_into(api, "spoofed", "other", WEB, {"memory": "32Mi"})
    assert refused["delivery"]["state"] == "failed" and "certificate" in refused["delivery"]["error"]
    assert tls_engine.containers("other") == {}
    with socket_app.app_context():
        observation.observe(environments.named("spoofed"))
        state = environments.named("spoofed")["state"]
    assert state["reachable"] is False and "certificate" in state["error"].lower()
