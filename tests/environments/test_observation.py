"""What runs observed on a real Docker Engine (support/docker_engine.py) and held against what was
admitted: drift made by hand as people make it (a scale, a limit raised, a container beside the
render, a project nobody delivered, containers removed) is seen, the profile's observed usage
follows the engine, and an environment that heals delivers the admitted release again."""

import pytest

from app.environments.storage import store as environments
from app.joins import observation
from support.docker_engine import IMAGE, api, deployed, engine  # noqa: F401 (fixtures)
from support.jobs import ended

pytestmark = pytest.mark.slow
WEB = f"services:\n  web:\n    image: {IMAGE}\n    command: [sleep, '3600']\n    init: true\n"
MI = 2**20


def observe(api, socket_app, instance_id):  # noqa: F811
    """Observe the environment once, as the schedule does; the instance as it reads then."""
    with socket_app.app_context():
        observation.observe(environments.named("engine"))
    return api.get(f"/instances/{instance_id}", user="alice").json


def test_drift_made_by_hand_is_seen_and_healed(api, socket_app, engine):  # noqa: F811
    instance = deployed(api, engine, "shop", WEB, {"memory": "64Mi", "cpu": "250m"})
    seen = observe(api, socket_app, instance["id"])["observed"]
    assert seen["state"] == "running" and seen["drift"] == []
    assert seen["services"] == [
        {"name": "web", "containers": 1, "running": 1, "healthy": 1, "memoryBytes": 64 * MI, "cpuMillis": 250}
    ]
    profile = api.get(f"/profiles/{instance['profile']}", user="alice").json
    assert profile["usage"]["observed"] == {"containers": 1, "memoryBytes": 64 * MI, "cpuMillis": 250}

    yml = api.get(f"/instances/{instance['id']}/yml", user="alice").body.decode()
    engine.compose("shop", "up", "-d", "--scale", "web=3", "--no-recreate", yml=yml)  # scaled by hand
    engine.docker("update", "--memory", "128m", "--memory-swap", "128m", "shop-web-1")  # a limit raised
    beside = ["--label", "com.docker.compose.project=shop", "--label", "com.docker.compose.service=debug"]
    engine.docker("run", "-d", "--name", "shop-debug", *beside, IMAGE, "sleep", "3600")  # beside the render
    other = ["--label", "com.docker.compose.project=by-hand", "--label", "com.docker.compose.service=app"]
    engine.docker("run", "-d", "--name", "by-hand", "--memory", "32m", *other, IMAGE, "sleep", "3600")
    seen = observe(api, socket_app, instance["id"])["observed"]
    assert seen["state"] == "drifted"
    drift = {one["path"]: (one["admitted"], one["observed"]) for one in seen["drift"]}
    assert drift == {
        "services.debug": (None, {"containers": 1}),
        "services.web.containers": (1, 3),
        "services.web.memoryBytes": (64 * MI, 128 * MI),
    }
    whole_engine = api.get("/environments", user="admin").json["items"][0]["state"]
    assert whole_engine["reachable"] is True and whole_engine["instances"] == {"drifted": 1}
    assert [(one["project"], [c["memoryBytes"] for c in one["containers"]]) for one in whole_engine["unmanaged"]] == [
        ("by-hand", [32 * MI])
    ]
    profile = api.get(f"/profiles/{instance['profile']}", user="alice").json
    observed = profile["usage"]["observed"]
    assert observed["containers"] == 4 and observed["memoryBytes"] > profile["usage"]["memoryBytes"]

    environment = api.get("/environments", user="admin").json["items"][0]
    assert api.patch(f"/environments/{environment['id']}", json={"heal": True}, user="admin").status == 200
    observe(api, socket_app, instance["id"])  # delivers the admitted release again
    again = api.get(f"/instances/{instance['id']}", user="alice").json["delivery"]
    assert ended(api, again["job"])["report"]["state"] == "applied"
    assert list(engine.containers("shop").values()) == [(True, 64 * MI)]
    seen = observe(api, socket_app, instance["id"])["observed"]
    assert (seen["state"], seen["drift"]) == ("running", [])

    engine.docker("rm", "-f", *engine.containers("shop"))  # gone by hand
    assert observe(api, socket_app, instance["id"])["observed"]["state"] == "missing"
    again = api.get(f"/instances/{instance['id']}", user="alice").json["delivery"]
    assert ended(api, again["job"])["report"]["state"] == "applied"
    assert list(engine.containers("shop").values()) == [(True, 64 * MI)]
    engine.docker("rm", "-f", "by-hand")
