"""What the page tests share: the bodies people send, and what alice and bob have made before a
person opens the page."""

import json
from pathlib import Path

import pytest

from support.http import FlaskClient

# every page test: slow, in a browser, on mongomock, at a desktop's width and a phone's
MARKS = [
    pytest.mark.slow,
    pytest.mark.browser,
    pytest.mark.parametrize("app", ["mongomock"], indirect=True),
    pytest.mark.parametrize("width", [1280, 390]),
]

BODIES = Path(__file__).resolve().parent.parent / "bench" / "bodies"
BLUEPRINT = json.loads((BODIES / "blueprint.json").read_text())
TEMPLATE = json.loads((BODIES / "template.json").read_text())
XSS_NAME = "<img src=x onerror=alert(1)>"
XSS_DESCRIPTION = "<script>alert(2)</script>"
# the second line is wider than a phone
XSS_YML = "note: '</script><script>alert(3)</script>'\nlong: " + "a-long-value " * 40 + "\n"
STACKS = 52  # more than a page of 50
# a service whose CPU is a variable the template does not declare: measured as unresolved
MADE = "services:\n  web:\n    image: nginx\n    mem_limit: 256m\n  cache:\n    image: redis\n    cpus: ${CACHE_CPUS}\n"
# a Compose file an import turns into a blueprint with parameters (its .env gives TAG)
IMPORTED = (
    "services:\n  db:\n    image: postgres:${TAG:-16}\n    deploy:\n      replicas: ${REPLICAS:-1}\n"
    "    environment:\n      POSTGRES_PASSWORD: ${POSTGRES_PASSWORD}\n"
)


def seed(app):
    """What alice and bob have made: more than a page of stacks, a template, a blueprint whose
    name and definition try to inject markup, and three profiles of alice's; the operator prices."""
    app.config.update(PRICES="cpu=20,memoryGiB=5,storageGiB=0.1,currency=EUR")
    client = FlaskClient(app)
    for i in range(STACKS):
        tags = ["web", "db"] if i % 2 else ["web"]
        assert (
            client.post("/blueprints", json={**BLUEPRINT, "name": f"stack-{i:02d}", "tags": tags}, user="alice").status
            == 201
        )
    template = client.post("/blueprints", json=TEMPLATE, user="alice").json
    evil = {"name": XSS_NAME, "description": XSS_DESCRIPTION, "yml": XSS_YML, "entitlementType": "PUBLIC"}
    assert client.post("/blueprints", json=evil, user="bob").status == 201
    profiles = {}
    for name, caps in {
        "team": {"memoryCap": "4Gi", "cpuCap": "4"},
        "roomy": {
            "containerCap": "10",
            "memoryCap": "8Gi",
            "cpuCap": "8",
            "containerDefaults": {"memory": "256Mi", "cpu": "0.25"},
            "containerMax": {"memory": "2Gi"},
        },
        "tiny": {"containerCap": "4"},
    }.items():
        profiles[name] = client.post(
            "/profiles", json={"name": name, **caps, "defaultProfile": name == "team"}, user="alice"
        ).json
    return client, template, profiles
