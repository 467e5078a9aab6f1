"""An instance's API tests share: a template as people publish them, a team's profile, a deploy,
a profile's usage, and the check that every definition a test made is one Docker Compose accepts."""

from support import compose_oracle as oracle

# a template as people publish them: no limits, a replica count and a generated password
WEB = """services:
  web:
    image: nginx:${TAG}
    deploy:
      replicas: ${REPLICAS}
    environment:
      DB_PASSWORD: ${DB_PASSWORD}
"""
PARAMETERS = {
    "type": "object",
    "properties": {
        "TAG": {"type": "string", "default": "1.27"},
        "REPLICAS": {"type": "integer", "default": 1, "minimum": 0, "maximum": 50},
        "DB_PASSWORD": {"type": "string", "writeOnly": True, "x-generate": "[A-Za-z0-9]{24}"},
    },
}
TEAM = {
    "name": "team",
    "memoryCap": "1Gi",
    "cpuCap": "1",
    "containerCap": "10",
    "containerDefaults": {"memory": "256Mi", "cpu": "100m"},
}


def assert_compose_accepts_every_definition(api):
    """Every instance's rendered definition is read as Docker Compose reads it (after a test)."""
    for item in api.get("/instances?limit=200", user="admin").json["items"]:
        text = api.get(f"/instances/{item['id']}/yml", user="admin").body.decode()
        accepted, project = oracle.config(text)
        assert accepted, (item["name"], project)


def deploy(api, blueprint, profile, name, user="alice", **body):
    return api.post(
        "/instances", json={"name": name, "blueprint": blueprint["id"], "profile": profile["id"], **body}, user=user
    )


def usage(api, profile, user="alice"):
    """What the profile's instances use as admitted, in amounts (its cost: tests/joins/test_costs.py;
    what an engine holds: tests/environments/test_observation.py)."""
    used = api.get(f"/profiles/{profile['id']}", user=user).json["usage"]
    assert used.pop("monthly") is None and used.pop("currency") is None  # no PRICES here
    assert used.pop("observed") is None  # no environment here
    return used
