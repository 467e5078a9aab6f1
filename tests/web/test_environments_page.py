"""The environments page (#/environments) in headless Chromium, over a real Docker Engine
(support/docker_engine.py): an instance delivered there, drift made by hand and a project started
beside the service's; the page shows the engine observed, the instance drifted with its drift in
words, and the project it did not deliver."""

import pytest

from app.environments.storage import store as environments
from app.joins import observation
from support.docker_engine import IMAGE, deployed, engine  # noqa: F401 (a fixture)
from support.http import FlaskClient
from support.pages import MARKS

pytestmark = MARKS
WEB = f"services:\n  web:\n    image: {IMAGE}\n    command: [sleep, '3600']\n    init: true\n"
BY_HAND = ["--label", "com.docker.compose.project=by-hand", "--label", "com.docker.compose.service=app"]


@pytest.fixture
def drifted(app, engine):  # noqa: F811
    """alice's `shop` delivered to `engine`, a limit raised by hand, a project beside it; observed."""
    app.config.update(ENVIRONMENT_SOCKETS=(str(engine.socket),), DELIVERY_SECONDS=60)
    client = FlaskClient(app)
    deployed(client, engine, "shop", WEB, {"memory": "64Mi", "cpu": "250m"})
    [container] = engine.containers("shop")
    engine.docker("update", "--memory", "128m", "--memory-swap", "128m", container)
    engine.docker("run", "-d", "--name", "by-hand", "--memory", "32m", *BY_HAND, IMAGE, "sleep", "3600")
    with app.app_context():
        observation.observe(environments.named("engine"))
    yield container
    engine.docker("rm", "-f", "by-hand", *engine.containers("shop"))


def test_a_person_sees_where_instances_run_and_what_drifted(person, drifted):
    w = person
    w.go("#/environments")
    w.sign_in("alice")
    w.wait(lambda: w.heading() == "Environments" and w.all("ul[aria-label=Environments] > li"))
    card = w.one("ul[aria-label=Environments] > li").text
    assert "Reachable at" in card and "Docker " in card
    assert "observed every 60 s" in card and "at unix://" not in card  # where it is reached: the admins'
    shop = w.one("table[aria-label='Instances in engine'] tbody tr").text
    assert shop.startswith("shop") and "applied, release 1" in shop and "drifted" in shop
    drift = w.one("ul[aria-label='Drift of shop']").text
    assert drift == f"web.memoryBytes: admitted 64 MiB, runs with 128 MiB ({drifted})"
    assert "1 drifted" in w.one("table[aria-label='Instances in engine'] caption").text
    unmanaged = w.one("table[aria-label='Unmanaged in engine']").text
    assert "by-hand" in unmanaged and "32 MiB" in unmanaged
    w.check_page("environments")
