"""The service killed with SIGKILL in the middle of a delivery, as operators run it (gunicorn on
the embedded database, a real Docker Engine): once restarted, the schedule's observation takes the
delivery up again, and the engine runs the instance once, as admitted, its profile's usage the
sum of its instances; killed as an observation begins, nothing is delivered twice."""

import time

import pytest
from pymongo import MongoClient

from app.storage import embedded
from support.docker_engine import IMAGE, engine  # noqa: F401 (a fixture)
from support.http import SocketClient, basic
from support.ports import free_port
from support.processes import Gunicorn

ADMIN = ("admin", "change-me-now")
AUTH = {"Authorization": basic(*ADMIN)}
# a health check Compose's `--wait` waits for: the delivery stays `applying` for a few seconds
WEB = (
    f"services:\n  web:\n    image: {IMAGE}\n    command: [sleep, '3600']\n    init: true\n"
    "    healthcheck: {test: [CMD, sleep, '1'], interval: 3s, start_period: 0s}\n"
)
pytestmark = pytest.mark.slow


def _observed_running(client, _id):
    """The instance's `observed` once an observation saw it running, else None."""
    observed = client.get(f"/instances/{_id}", headers=AUTH).json["observed"]
    return observed if observed and observed["state"] == "running" else None


def waited(condition, seconds, why):
    deadline = time.monotonic() + seconds
    while not (found := condition()):
        assert time.monotonic() < deadline, why
        time.sleep(0.2)
    return found


def test_a_delivery_killed_with_the_service_is_taken_up_again_once(tmp_path, engine):  # noqa: F811
    database, uri = embedded.launch(str(tmp_path / "data"), free_port())
    settings = {"MONGO_URI": uri, "MONGO_DB": "faults", "ADMIN_USERNAME": ADMIN[0], "ADMIN_PASSWORD": ADMIN[1]}
    settings |= {"ENVIRONMENT_SOCKETS": str(engine.socket), "DELIVERY_SECONDS": 5, "REQUEST_TIMEOUT": 5}
    service = Gunicorn(**settings, WEB_CONCURRENCY=1).start()
    try:
        client = SocketClient(service.port)
        environment = {"name": "engine", "kind": "docker", "endpoint": f"unix://{engine.socket}", "interval": 15}
        assert client.post("/environments", json=environment, headers=AUTH).status == 201
        room = {"name": "team", "containerDefaults": {"memory": "48Mi", "cpu": "100m"}, "environments": ["engine"]}
        profile = client.post("/profiles", json=room, headers=AUTH).json
        blueprint = {"name": "web", "blueprintType": "compose", "yml": WEB}
        blueprint = client.post("/blueprints", json=blueprint, headers=AUTH).json
        body = {"name": "shop", "blueprint": blueprint["id"], "profile": profile["id"], "environment": "engine"}
        made = client.post("/instances", json=body, headers=AUTH).json

        def delivery():
            return client.get(f"/instances/{made['id']}", headers=AUTH).json["delivery"]

        waited(lambda: delivery()["state"] == "applying", 30, "the delivery did not start")
        service.kill()  # kill -9 of the master, its worker and the Compose it runs
        service = Gunicorn(**settings, WEB_CONCURRENCY=1).start()
        client = SocketClient(service.port)
        assert delivery()["state"] == "applying"  # left under way
        # past DELIVERY_SECONDS and the lease, an observation of the schedule (every 15 s) takes it up
        waited(lambda: delivery()["state"] == "applied", 120, "the delivery was not taken up again")
        assert delivery()["job"] != made["delivery"]["job"]
        running = engine.containers("shop")
        assert list(running.values()) == [(True, 48 * 2**20)], running  # once, as admitted
        used = client.get(f"/profiles/{profile['id']}", headers=AUTH).json["usage"]
        assert (used["instances"], used["memoryBytes"], used["containers"]) == (1, 48 * 2**20, 1)
        # the observation that takes the delivery up saw it still starting: the next one sees it run
        observed = waited(lambda: _observed_running(client, made["id"]), 60, "never observed running")
        assert observed["usage"] == {"containers": 1, "memoryBytes": 48 * 2**20, "cpuMillis": 100}
    finally:
        service.stop()
        engine.docker("rm", "-f", *engine.containers("shop"), check=False)
        database.terminate()
        database.wait()


def test_an_observation_killed_with_the_service_delivers_nothing_twice(tmp_path, engine):  # noqa: F811
    """The service is killed with SIGKILL as soon as an observation has begun (its environment moved
    on): once restarted, the next observation writes what runs; no delivery is started again, the
    engine runs each instance once, usage is the sum."""
    database, uri = embedded.launch(str(tmp_path / "data"), free_port())
    settings = {"MONGO_URI": uri, "MONGO_DB": "faults", "ADMIN_USERNAME": ADMIN[0], "ADMIN_PASSWORD": ADMIN[1]}
    settings |= {"ENVIRONMENT_SOCKETS": str(engine.socket), "DELIVERY_SECONDS": 30}
    service = Gunicorn(**settings, WEB_CONCURRENCY=1).start()
    names = ("one", "two", "three")
    try:
        client = SocketClient(service.port)
        environment = {"name": "engine", "kind": "docker", "endpoint": f"unix://{engine.socket}", "interval": 15}
        assert client.post("/environments", json=environment, headers=AUTH).status == 201
        room = {"name": "team", "containerDefaults": {"memory": "24Mi", "cpu": "50m"}, "environments": ["engine"]}
        profile = client.post("/profiles", json=room, headers=AUTH).json
        quick = WEB.split("    healthcheck")[0]
        blueprint = client.post(
            "/blueprints", json={"name": "web", "blueprintType": "compose", "yml": quick}, headers=AUTH
        )
        made = []
        for name in names:
            body = {"name": name, "blueprint": blueprint.json["id"], "profile": profile["id"], "environment": "engine"}
            made.append(client.post("/instances", json=body, headers=AUTH).json)
        for one in made:
            waited(
                lambda one=one: client.get(f"/jobs/{one['delivery']['job']}", headers=AUTH).json["state"] == "done",
                60,
                "a delivery",
            )
        environments = MongoClient(uri).faults.environments
        before = environments.find_one()["observeAt"]
        waited(lambda: environments.find_one()["observeAt"] != before, 60, "no observation began")
        service.kill()  # as soon as it moved the environment on: during, or just after, its observation
        jobs = MongoClient(uri).faults.jobs.count_documents({"kind": "deliver"})
        service = Gunicorn(**settings, WEB_CONCURRENCY=1).start()
        client = SocketClient(service.port)
        moved = environments.find_one()["observeAt"]
        waited(lambda: environments.find_one()["observeAt"] != moved, 60, "the schedule did not observe again")
        waited(
            lambda: (environments.find_one().get("state") or {}).get("instances") == {"running": 3}, 30, "not observed"
        )
        assert MongoClient(uri).faults.jobs.count_documents({"kind": "deliver"}) == jobs  # nothing delivered again
        assert {name: list(engine.containers(name).values()) for name in names} == {
            name: [(True, 24 * 2**20)] for name in names
        }
        used = client.get(f"/profiles/{profile['id']}", headers=AUTH).json["usage"]
        assert (used["instances"], used["memoryBytes"]) == (3, 3 * 24 * 2**20)
        assert used["observed"] == {"containers": 3, "memoryBytes": 3 * 24 * 2**20, "cpuMillis": 150}
    finally:
        service.stop()
        engine.docker("rm", "-f", *(c for name in names for c in engine.containers(name)), check=False)
        database.terminate()
        database.wait()
