"""bpctl, the installed program in processes of its own, delivering to a real Docker Engine
(support/docker_engine.py): deploy --env --wait, drift made by hand shown by `status` (exit 1),
`env ls` counting the instance as drifted, and `undeploy --purge` taking it down with its volume."""

import pytest

from app.environments.storage import store as environments
from app.joins import observation
from support.apps import serving
from support.bpctl import Bpctl
from support.docker_engine import IMAGE, engine  # noqa: F401 (a fixture)
from support.http import PASSWORD, SocketClient
from support.jobs import all_ended

pytestmark = pytest.mark.slow
ADMIN = {"BPCTL_USERNAME": "admin", "BPCTL_PASSWORD": PASSWORD}
ALICE = {"BPCTL_USERNAME": "alice", "BPCTL_PASSWORD": PASSWORD}
WEB = (
    f"services:\n  web:\n    image: {IMAGE}\n    command: [sleep, '3600']\n    init: true\n    volumes: [data:/data]\n"
)
WEB += "volumes:\n  data: {}\n"
VOLUMES = ["volume", "ls", "-q", "--filter", "label=com.docker.compose.project=shop"]


@pytest.fixture
def bpctl(socket_app, engine, tmp_path):  # noqa: F811
    socket_app.config.update(ENVIRONMENT_SOCKETS=(str(engine.socket),), DELIVERY_SECONDS=60)
    with serving(socket_app) as port:
        client = Bpctl(f"http://127.0.0.1:{port}", tmp_path / "config")
        client.api = SocketClient(port)
        yield client


def test_a_team_deploys_sees_drift_and_undeploys_with_bpctl(bpctl, socket_app, engine, tmp_path):  # noqa: F811
    added = bpctl.run("env", "add", "engine", "--docker", f"unix://{engine.socket}", **ADMIN)
    assert added.returncode == 0, added.stderr
    profile = bpctl.api.post("/profiles", json={"name": "team", "containerDefaults": {"memory": "64Mi"}}, user="alice")
    path = f"/profiles/{profile.json['id']}"
    assert bpctl.api.patch(path, json={"environments": ["engine"]}, user="admin").status == 200
    (tmp_path / "web.yml").write_text(WEB)
    assert bpctl.run("push", str(tmp_path / "web.yml"), "--name", "web", **ALICE).returncode == 0
    deployed = bpctl.run("deploy", "web", "shop", "--profile", "team", "--env", "engine", "--wait", **ALICE)
    assert deployed.returncode == 0, deployed.stderr
    assert deployed.stdout == b"shop: applied in engine, release 1\n"

    engine.docker("update", "--memory", "256m", "--memory-swap", "256m", "shop-web-1")  # a limit raised by hand
    with socket_app.app_context():
        observation.observe(environments.named("engine"))
    status = bpctl.run("status", "shop", **ALICE)
    assert status.returncode == 1
    assert b"drifted" in status.stdout
    assert b"drift services.web.memoryBytes: admitted 64Mi, observed 256Mi" in status.stdout
    listed = bpctl.run("env", "ls", **ADMIN)
    assert b"reachable; 1 drifted" in listed.stdout

    gone = bpctl.run("undeploy", "shop", "--purge", "--wait", **ALICE)
    assert gone.returncode == 0 and b"with its named volumes" in gone.stderr
    assert b"shop: taken down in engine." in gone.stderr
    assert engine.containers("shop") == {} and engine.docker(*VOLUMES).stdout.split() == []  # already, once it says so
    all_ended()
