"""An engine over ssh (Debian's sshd, support/git_servers.py, in front of the test's engine): its
socket forwarded by ssh with the environment's deploy key and host keys, delivered to and observed;
a key the host does not take is refused, saying so."""

import pytest

from app.environments.storage import store as environments
from app.joins import observation
from support.apps import serving
from support.docker_engine import IMAGE, delivered_into, engine  # noqa: F401 (a fixture)
from support.git_servers import SshGit
from support.http import SocketClient

pytestmark = pytest.mark.slow
WEB = f"services:\n  web:\n    image: {IMAGE}\n    command: [sleep, '3600']\n    init: true\n"


@pytest.fixture
def sshd(tmp_path):
    with SshGit(tmp_path / "sshd") as server:
        yield server


@pytest.fixture
def api(socket_app, sshd):
    socket_app.config.update(ENVIRONMENT_HOSTS=(f"127.0.0.1:{sshd.port}",), ENVIRONMENT_PRIVATE=True)
    socket_app.config.update(DELIVERY_SECONDS=60)
    with serving(socket_app) as port:
        yield SocketClient(port)


def test_an_engine_over_ssh_is_reached_through_its_forwarded_socket(api, socket_app, sshd, engine):  # noqa: F811
    endpoint = f"ssh://root@127.0.0.1:{sshd.port}{engine.socket}"
    known = sshd.known_hosts.read_text()
    body = {"name": "remote", "kind": "docker", "endpoint": endpoint, "deployKey": sshd.deploy_key, "knownHosts": known}
    made = api.post("/environments", json=body, user="admin")
    assert made.status == 201, made.json
    shop = delivered_into(api, "remote", "shop", WEB, {"memory": "40Mi"})
    assert shop["delivery"]["state"] == "applied", shop["delivery"]
    assert engine.containers("shop") == {"shop-web-1": (True, 40 * 2**20)}
    with socket_app.app_context():
        observation.observe(environments.named("remote"))
    seen = api.get(f"/instances/{shop['id']}", user="alice").json["observed"]
    assert seen["state"] == "running" and seen["usage"]["memoryBytes"] == 40 * 2**20

    refused = {**body, "name": "refused", "deployKey": sshd.other_key}
    assert api.post("/environments", json=refused, user="admin").status == 201
    other = delivered_into(api, "refused", "other", WEB, {"memory": "40Mi"})
    assert other["delivery"]["state"] == "failed" and "Permission denied" in other["delivery"]["error"]
    assert engine.containers("other") == {}
    engine.docker("rm", "-f", *engine.containers("shop"))
