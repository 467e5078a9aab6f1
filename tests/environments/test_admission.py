"""Admitted into an environment: only one its profile names, as its kind renders; what the
engine would refuse refused at admission; a project name held per environment; a delivery that
fails says why (without the instance's secrets), the admission standing."""

from datetime import timedelta

import pytest

from app.environments.storage import store as environments
from app.instances.removals import store as removals
from app.instances.storage import store as instances
from app.joins import delivery, observation
from app.storage.resource_store import object_id
from support.environments import WEB, admission
from support.http import assert_problem
from support.jobs import all_ended, ended


@pytest.mark.parametrize(
    "change, field, why",
    [
        ({"environment": "elsewhere"}, "environment", "may not use 'elsewhere'"),
        ({"target": "kubernetes"}, "target", "runs `compose`"),
    ],
)
def test_an_instance_uses_an_environment_its_profile_names_as_its_kind_runs(api, deployable, change, field, why):
    refused = api.post("/instances", json=admission(deployable, **change), user="alice")
    assert why in assert_problem(refused, 422)["errors"][field][0]


# WEB changed at one node each: what would reach another team's project on the same engine
BEYOND = {
    "networks.shop": WEB + "    networks: [shop]\nnetworks:\n  shop: {external: true, name: shop_default}\n",
    "volumes.data": WEB + "    volumes: [data:/data]\nvolumes:\n  data: {name: shop_db-data}\n",
    "services.web.network_mode": WEB + "    network_mode: container:shop-db-1\n",
    "services.web.pid": WEB + "    pid: container:shop-db-1\n",
    "services.web.volumes_from.0": WEB + "    volumes_from: [container:shop-db-1]\n",
}


@pytest.mark.parametrize("place", BEYOND)
def test_what_reaches_another_project_on_a_shared_engine_is_refused(api, deployable, place):
    """Compose takes a named or external volume or network as it finds it, and `container:` joins
    another container: on an engine teams share, only a privileged profile's instance may."""
    profile, blueprint = deployable
    assert api.patch(f"/blueprints/{blueprint}", json={"yml": BEYOND[place]}, user="alice").status == 200
    refused = api.post("/instances", json=admission(deployable), user="alice")
    assert "its own project's" in assert_problem(refused, 422)["errors"][f"yml.{place}"][0]
    assert api.post("/instances", json={**admission(deployable), "environment": None}, user="alice").status == 201
    privileged = {"podSecurity": "privileged"}
    assert api.patch(f"/profiles/{profile}", json=privileged, user="admin").status == 200
    assert api.post("/instances", json={**admission(deployable), "name": "ops"}, user="alice").status == 201
    all_ended()  # its delivery (to no engine) records its end before the service stops under it


def test_a_service_that_builds_is_refused_where_an_engine_would_run_it(api, deployable):
    """The service builds nothing on an engine; without an environment, the caller deploys it. (A
    host path mounted is pod security's finding, refused unless the profile is privileged.)"""
    _, blueprint = deployable
    assert api.patch(f"/blueprints/{blueprint}", json={"yml": WEB + "    build: .\n"}, user="alice").status == 200
    refused = api.post("/instances", json=admission(deployable), user="alice")
    assert "image" in assert_problem(refused, 422)["errors"]["yml.services.web.build"][0]
    assert api.post("/instances", json={**admission(deployable), "environment": None}, user="alice").status == 201


def test_a_delivery_that_fails_says_why_and_the_admission_stands(api, deployable):
    """No engine listens at the socket: the job fails the delivery, the instance and its usage stay."""
    made = api.post("/instances", json=admission(deployable), user="alice")
    assert made.status == 201, made.json
    delivery = made.json["delivery"]
    assert (delivery["state"], delivery["release"]) == ("pending", 1) and delivery["job"]
    job = ended(api, delivery["job"])
    assert job["state"] == "done" and job["report"]["state"] == "failed"
    read = api.get(f"/instances/{made.json['id']}", user="alice").json
    assert read["delivery"]["state"] == "failed" and "docker compose up exited" in read["delivery"]["error"]
    usage = api.get(f"/profiles/{deployable[0]}", user="alice").json["usage"]
    assert usage["instances"] == 1


def test_a_project_name_is_held_per_environment_whoever_owns_it(api, deployable):
    """Two owners' instances of one name would be one Compose project on the engine."""
    alices = api.post("/instances", json=admission(deployable), user="alice")
    assert alices.status == 201
    ended(api, alices.json["delivery"]["job"])  # no engine listens: its delivery fails, the name stays held
    bobs = api.post("/profiles", json={"name": "bob's", "containerDefaults": {"memory": "64Mi"}}, user="bob").json
    assert api.patch(f"/profiles/{bobs['id']}", json={"environments": ["shared-docker"]}, user="admin").status == 200
    blueprint = api.post("/blueprints", json={"name": "web", "blueprintType": "compose", "yml": WEB}, user="bob").json
    body = {**admission(deployable), "profile": bobs["id"], "blueprint": blueprint["id"]}
    for query in ("?dryRun=true", ""):
        held = api.post(f"/instances{query}", json=body, user="bob")
        assert "held per environment" in assert_problem(held, 409)["detail"]
    assert api.post("/instances", json={**body, "environment": None}, user="bob").status == 201


def test_a_delivery_s_error_hides_the_instance_secrets():
    """Compose's words may quote the file, and an instance's readers who may not read its definition read them."""
    doc = {"values": {"PASSWORD": None, "SITE": "shop"}, "kept": {"PASSWORD": "s3cr3t", "SITE": "shop"}}
    said = "services.web.environment.DB_PASSWORD: 's3cr3t' for shop is not valid"
    assert delivery.without_secrets(said, doc) == "services.web.environment.DB_PASSWORD: '***' for shop is not valid"


def observe(app):
    """Observe `shared-docker` once, as the schedule does."""
    with app.app_context():
        observation.observe(environments.named("shared-docker"))
        return environments.named("shared-docker")["state"]


def delivery_of(api, instance_id):
    return api.get(f"/instances/{instance_id}", user="alice").json["delivery"]


def moved_back(app, instance_id, seconds, **delivery_fields):
    """The instance's delivery as if it had been written `seconds` ago (with `delivery_fields`)."""
    with app.app_context():
        at = instances.stored(object_id(instance_id))["delivery"]["at"] - timedelta(seconds=seconds)
        fields = {f"delivery.{key}": value for key, value in {"at": at, **delivery_fields}.items()}
        instances.coll().update_one({"_id": object_id(instance_id)}, {"$set": fields})


def test_an_engine_away_is_observed_and_a_failed_delivery_tried_again_after_its_backoff(api, deployable, allowed):
    """No engine listens: the environment reads unreachable, saying why; the failed delivery is
    tried at the observations after 1, then 2 intervals (60 s each), not before."""
    made = api.post("/instances", json=admission(deployable), user="alice").json
    first = ended(api, made["delivery"]["job"])["id"]
    state = observe(allowed)
    assert state["reachable"] is False and "did not answer" in state["error"]
    assert state["instances"] == {"failed": 1}
    assert delivery_of(api, made["id"])["job"] == first  # failed just now: not yet again
    moved_back(allowed, made["id"], 61)
    observe(allowed)
    second = delivery_of(api, made["id"])["job"]
    assert second != first and ended(api, second)["report"]["state"] == "failed"
    moved_back(allowed, made["id"], 61)  # twice failed: waits two intervals
    observe(allowed)
    assert delivery_of(api, made["id"])["job"] == second
    moved_back(allowed, made["id"], 61)
    observe(allowed)
    third = delivery_of(api, made["id"])["job"]
    assert third != second and ended(api, third)["report"]["state"] == "failed"


def test_a_delivery_a_stopped_process_left_under_way_is_taken_up_again(api, deployable, allowed):
    """A kill -9 mid-delivery leaves it `applying`: once past its time and lease, the next
    observation delivers it again; one still within them is left to its job."""
    made = api.post("/instances", json=admission(deployable), user="alice").json
    first = ended(api, made["delivery"]["job"])["id"]
    moved_back(allowed, made["id"], 5, state="applying")
    observe(allowed)
    assert delivery_of(api, made["id"])["job"] == first
    moved_back(allowed, made["id"], 30 + 3600, state="applying")
    observe(allowed)
    again = delivery_of(api, made["id"])["job"]
    assert again != first and ended(api, again)["report"]["release"] == 1


def test_a_host_port_is_published_by_one_instance_of_an_environment(api, deployable):
    """Two projects binding one host port cannot both start on an engine: the second is a 409
    naming `ports`, on a dry run and an upgrade alike; elsewhere, or once the first is gone, it is free."""
    _, blueprint = deployable
    published = WEB + "    ports: ['127.0.0.1:8080:80', {target: 81, published: '9000-9001', protocol: udp}]\n"
    assert api.patch(f"/blueprints/{blueprint}", json={"yml": published}, user="alice").status == 200
    first = api.post("/instances", json=admission(deployable), user="alice")
    assert first.status == 201, first.json
    ended(api, first.json["delivery"]["job"])
    for query in ("?dryRun=true", ""):
        second = api.post(f"/instances{query}", json=admission(deployable, name="shop-2"), user="alice")
        assert "`ports`: the host port 8080/tcp" in assert_problem(second, 409)["detail"]
    assert (
        api.post("/instances", json=admission(deployable, name="other", environment=None), user="alice").status == 201
    )
    assert api.patch(f"/blueprints/{blueprint}", json={"yml": WEB}, user="alice").status == 200
    quiet = api.post("/instances", json=admission(deployable, name="quiet"), user="alice")
    ended(api, quiet.json["delivery"]["job"])
    assert api.patch(f"/blueprints/{blueprint}", json={"yml": published}, user="alice").status == 200
    upgraded = api.post(f"/instances/{quiet.json['id']}/upgrade", json={}, user="alice")
    assert "the host port 8080/tcp" in assert_problem(upgraded, 409)["detail"]  # the first held, in order
    assert api.delete(f"/instances/{first.json['id']}", user="alice").status == 204
    upgraded = api.post(f"/instances/{quiet.json['id']}/upgrade", json={}, user="alice")
    assert upgraded.status == 200, upgraded.json
    ended(api, upgraded.json["delivery"]["job"])
    all_ended()


def test_a_host_path_is_mounted_only_where_the_profile_is_privileged(api, deployable):
    profile, blueprint = deployable
    mounted = WEB + "    volumes: ['/etc:/host-etc:ro']\n"
    assert api.patch(f"/blueprints/{blueprint}", json={"yml": mounted}, user="alice").status == 200
    refused = api.post("/instances", json=admission(deployable), user="alice")
    assert assert_problem(refused, 422)["errors"]["podSecurity"] == [
        "services.web.volumes.0: HostPath Volumes (the profile holds to baseline)"
    ]
    assert api.patch(f"/profiles/{profile}", json={"podSecurity": "privileged"}, user="admin").status == 200
    admitted = api.post("/instances", json=admission(deployable), user="alice")
    assert admitted.status == 201, admitted.json
    ended(api, admitted.json["delivery"]["job"])


def test_an_environment_an_instance_runs_in_stays(api, deployable):
    """The profile lets the environment go; its instance still runs there: the delete is a 409."""
    profile, _ = deployable
    made = api.post("/instances", json=admission(deployable), user="alice").json
    ended(api, made["delivery"]["job"])
    assert api.patch(f"/profiles/{profile}", json={"environments": []}, user="admin").status == 200
    environment = api.get("/environments", user="admin").json["items"][0]
    refused = api.delete(f"/environments/{environment['id']}", user="admin")
    assert "instance 'shop'" in assert_problem(refused, 409)["detail"]
    assert api.delete(f"/instances/{made['id']}", user="alice").status == 204
    assert api.delete(f"/environments/{environment['id']}", user="admin").status == 204
    all_ended()


def test_a_project_being_taken_down_is_not_delivered_into_until_it_is_gone(api, deployable, allowed):
    """No engine listens: the take-down fails and the project stays held (a 409 for its name), is
    counted `removing` and tried again after its backoff; once down, the name is free."""
    made = api.post("/instances", json=admission(deployable), user="alice").json
    ended(api, made["delivery"]["job"])
    assert api.delete(f"/instances/{made['id']}", user="alice").status == 204
    all_ended()
    for query in ("?dryRun=true", ""):
        again = api.post(f"/instances{query}", json=admission(deployable), user="alice")
        assert "still being taken down" in assert_problem(again, 409)["detail"]
    assert observe(allowed)["instances"] == {"removing": 1}
    with allowed.app_context():
        [removal] = removals.of_environment("shared-docker")
        assert removal["state"] == "failed" and "docker compose down exited" in removal["error"]
        removals.coll().update_one({"_id": removal["_id"]}, {"$set": {"at": removal["at"] - timedelta(seconds=61)}})
    observe(allowed)  # its backoff passed: taken down again, failing again
    all_ended()
    with allowed.app_context():
        [removal] = removals.of_environment("shared-docker")
        assert removal["failures"] == 2
        removals.let_go(removal)  # as a take-down that succeeded does
    assert api.post("/instances", json=admission(deployable), user="alice").status == 201
    all_ended()


def test_more_host_ports_than_an_instance_may_bind_are_refused(api, deployable):
    _, blueprint = deployable
    wide = WEB + "    ports: ['20000-20300:80']\n"
    assert api.patch(f"/blueprints/{blueprint}", json={"yml": wide}, user="alice").status == 200
    refused = api.post("/instances", json=admission(deployable), user="alice")
    assert assert_problem(refused, 422)["errors"]["ports"] == ["At most 256 host ports are published by an instance."]
