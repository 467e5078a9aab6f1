"""A real Traefik in front of a real engine (support/traefik.py, support/docker_engine.py): two
teams' instances of one published template, each on its team's domain with no domain typed, the
environment's proxy conventions in their labels, their published port left to Traefik; each host
reaches its own instance and no other."""

import socket

import pytest

from support.docker_engine import IMAGE, api, engine  # noqa: F401 (fixtures)
from support.jobs import all_ended, ended
from support.traefik import get, routed, traefik

pytestmark = pytest.mark.slow
# a page that says whose it is, published on the host as people publish one, routed to the team's domain
SITE = f"""services:
  site:
    image: {IMAGE}
    command: [sh, -c, 'mkdir -p /www && echo "$$OWNER" > /www/index.html && exec httpd -f -p 80 -h /www']
    init: true
    environment:
      OWNER: ${{OWNER}}
    ports:
      - "8080:80"
x-routes:
  - {{service: site, port: 80}}
"""
PARAMETERS = {"type": "object", "properties": {"OWNER": {"type": "string", "default": "nobody"}}}


def team_instance(api, user, domain):  # noqa: F811
    """`user`'s instance `site` of SITE in the engine, under a profile with `domain` that keeps
    routed ports off the host: the instance once delivered."""
    conventions = {"domain": domain, "proxy": {"publish": False}}
    profile = api.post(
        "/profiles",
        json={"name": "team", "memoryCap": "1Gi", "containerDefaults": {"memory": "32Mi"}, "cluster": conventions},
        user=user,
    )
    assert profile.status == 201, profile.json
    assert api.patch(f"/profiles/{profile.json['id']}", json={"environments": ["engine"]}, user="admin").status == 200
    body = {"name": "site", "blueprintType": "compose", "yml": SITE, "parameters": PARAMETERS}
    blueprint = api.post("/blueprints", json=body, user=user).json
    sent = {
        "name": f"{user}-site",
        "blueprint": blueprint["id"],
        "profile": profile.json["id"],
        "environment": "engine",
    }
    made = api.post("/instances", json={**sent, "values": {"OWNER": user}}, user=user)
    assert made.status == 201, made.json
    assert ended(api, made.json["delivery"]["job"], user)["report"]["state"] == "applied"
    return made.json


def test_each_teams_host_reaches_its_own_instance_through_traefik(api, engine):  # noqa: F811
    engine.docker("network", "create", "edge")
    environment = {
        "name": "engine",
        "kind": "docker",
        "endpoint": f"unix://{engine.socket}",
        "proxy": {"network": "edge", "entrypoints": ["websecure"]},
    }
    assert api.post("/environments", json=environment, user="admin").status == 201
    alice = team_instance(api, "alice", "alice.example.com")
    bob = team_instance(api, "bob", "bob.example.com")  # the same host port: published by neither
    text = api.get(f"/instances/{alice['id']}/yml", user="alice").body.decode()
    assert '"traefik.http.routers.alice-site-site-0.entrypoints": "websecure"' in text
    assert '"traefik.docker.network": "edge"' in text and "8080" not in text
    with traefik(engine.socket) as port:
        assert routed(port, "alice-site.alice.example.com") == (200, "alice\n")
        assert routed(port, "bob-site.bob.example.com") == (200, "bob\n")
        assert get(port, "alice-site.bob.example.com")[0] == 404  # one team's name on the other's domain
        assert get(port, "bob-site.alice.example.com")[0] == 404
    with socket.socket() as probe:  # Traefik is the one way in
        assert probe.connect_ex(("127.0.0.1", 8080)) != 0
    for user, made in (("alice", alice), ("bob", bob)):
        assert api.delete(f"/instances/{made['id']}", user=user).status == 204
    all_ended()
