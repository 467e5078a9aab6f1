"""Delivery on a real Docker Engine (support/docker_engine.py): an admitted instance runs there as
admitted, with the limits its profile's defaults wrote in enforced by the engine; an upgrade is
delivered as its next release; a delete takes the project down, its named volumes kept unless
purged."""

import pytest

from support.docker_engine import IMAGE, api, deployed, engine  # noqa: F401 (fixtures)
from support.jobs import all_ended, ended

pytestmark = pytest.mark.slow
WEB = f"services:\n  web:\n    image: {IMAGE}\n    command: [sleep, '3600']\n    init: true\n"


def test_an_instance_is_delivered_upgraded_and_taken_down(api, engine):  # noqa: F811
    endpoint = f"unix://{engine.socket}"
    assert (
        api.post("/environments", json={"name": "engine", "kind": "docker", "endpoint": endpoint}, user="admin").status
        == 201
    )
    profile = api.post("/profiles", json={"name": "team", "containerDefaults": {"memory": "64Mi"}}, user="alice").json
    assert api.patch(f"/profiles/{profile['id']}", json={"environments": ["engine"]}, user="admin").status == 200
    blueprint = api.post("/blueprints", json={"name": "web", "blueprintType": "compose", "yml": WEB}, user="alice").json
    body = {"name": "shop", "blueprint": blueprint["id"], "profile": profile["id"], "environment": "engine"}
    made = api.post("/instances", json=body, user="alice")
    assert made.status == 201, made.json
    assert ended(api, made.json["delivery"]["job"])["report"]["state"] == "applied"
    instance = api.get(f"/instances/{made.json['id']}", user="alice").json
    assert (instance["delivery"]["state"], instance["delivery"]["release"]) == ("applied", 1)
    assert engine.containers("shop") == {"shop-web-1": (True, 64 * 2**20)}  # the default written in, enforced

    bigger = WEB + "    deploy: {resources: {limits: {memory: 96M}}}\n"
    assert api.patch(f"/blueprints/{blueprint['id']}", json={"yml": bigger}, user="alice").status == 200
    upgraded = api.post(f"/instances/{made.json['id']}/upgrade", json={}, user="alice")
    assert upgraded.status == 200, upgraded.json
    assert upgraded.json["delivery"]["release"] == 2
    assert ended(api, upgraded.json["delivery"]["job"])["report"] == {
        "instance": made.json["id"],
        "release": 2,
        "state": "applied",
        "error": None,
    }
    assert engine.containers("shop") == {"shop-web-1": (True, 96 * 2**20)}

    deleted = api.delete(f"/instances/{made.json['id']}", user="alice")
    assert deleted.status == 204
    job = deleted.headers["link"].removeprefix("</jobs/").removesuffix('>; rel="monitor"')  # the take-down
    assert ended(api, job)["report"] == {
        "instance": made.json["id"],
        "release": None,
        "state": "removed",
        "error": None,
    }
    assert engine.containers("shop") == {}
    all_ended()  # the delete's job records its end before the service stops under it


def test_a_delete_keeps_the_named_volumes_unless_purged(api, engine):  # noqa: F811
    """`docker compose down` keeps a project's named volumes (a team's data); `?purge=true` removes them."""
    kept = WEB + "    volumes: [data:/data]\nvolumes:\n  data: {}\n"
    instance = deployed(api, engine, "keep", kept, {"memory": "64Mi"})
    assert api.delete(f"/instances/{instance['id']}", user="alice").status == 204
    all_ended()
    volumes = ["volume", "ls", "-q", "--filter", "label=com.docker.compose.project=keep"]
    assert engine.containers("keep") == {} and engine.docker(*volumes).stdout.split() == ["keep_data"]
    again = api.get("/blueprints?name=keep", user="alice").json["items"][0]
    body = {"name": "keep", "blueprint": again["id"], "profile": instance["profile"], "environment": "engine"}
    made = api.post("/instances", json=body, user="alice").json
    assert ended(api, made["delivery"]["job"])["report"]["state"] == "applied"
    assert api.delete(f"/instances/{made['id']}?purge=true", user="alice").status == 204
    all_ended()
    assert engine.containers("keep") == {} and engine.docker(*volumes).stdout.split() == []
