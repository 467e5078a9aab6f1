"""A render for a Docker host meets its Traefik: the conventions (app/definitions/proxy.py) written
into real Compose files changed at one node, whatever shape the file gives its labels, networks and
ports, and Docker Compose reads the result as joined to the proxy's external network, the routed
port unpublished and every other port kept."""

import pytest
import yaml

from app.definitions import render
from app.model import quantities
from support import compose_oracle, corpus
from support.http import create

PROXY = {"network": "traefik-public", "entrypoints": ["websecure"], "certResolver": "le", "publish": False}
ROUTE = "x-routes:\n  - {service: gitea, port: 3000, host: git.example.com}\n"
GITEA_PORTS = "    ports:\n      - 3000:3000\n"
# Gitea's file, each changed at one node: the shapes its labels, networks and ports are written in
SHAPES = {
    "as published": lambda text: text,
    "ports of two, in flow": lambda text: text.replace(GITEA_PORTS, '    ports: ["3000:3000", "2222:22"]\n'),
    "a long port and a short one": lambda text: text.replace(
        GITEA_PORTS, "    ports:\n      - target: 3000\n        published: 3000\n      - 2222:22\n"
    ),
    "a network list": lambda text: (
        text.replace(GITEA_PORTS, GITEA_PORTS + "    networks: [back]\n") + "networks:\n  back: {}\n"
    ),
    "a network mapping": lambda text: (
        text.replace(GITEA_PORTS, GITEA_PORTS + "    networks:\n      back: {}\n") + "networks:\n  back:\n"
    ),
    "labels listed": lambda text: text.replace(GITEA_PORTS, GITEA_PORTS + "    labels:\n      - team=pay\n"),
    "its own network named proxy": lambda text: text + "networks:\n  proxy: {}\n",
}


def rendered(text, proxy=PROXY):
    limits = {**quantities.limits({}), "cluster": {"proxy": proxy}}
    return render.render({"yml": text + ROUTE, "blueprintType": "compose", "_id": "g", "name": "git"}, {}, limits)


@pytest.mark.parametrize("shape", SHAPES)
def test_the_proxys_conventions_are_written_whatever_the_files_shape(shape):
    text = SHAPES[shape](corpus.text("compose/gitea-postgres"))
    answer = rendered(text)
    accepted, project = compose_oracle.config(answer["yml"])
    assert accepted, project
    gitea = project["services"]["gitea"]
    labels = gitea["labels"]
    assert labels["traefik.http.routers.git-gitea-0.entrypoints"] == "websecure"
    assert labels["traefik.http.routers.git-gitea-0.tls.certresolver"] == "le"
    assert labels["traefik.docker.network"] == "traefik-public"
    joined = {project["networks"][key]["name"] for key in gitea["networks"]}
    assert "traefik-public" in joined and len(joined) >= 2  # still on its own network(s)
    external = [one for one in project["networks"].values() if one.get("external")]
    assert [one["name"] for one in external] == ["traefik-public"]
    assert [port["target"] for port in gitea.get("ports", [])] == ([22] if "2222" in text else [])
    assert [tuple(one) for one in answer["requirements"]["published"]] == ([(2222, "tcp")] if "2222" in text else [])
    db = {project["networks"][key]["name"] for key in project["services"]["db"].get("networks") or {}}
    assert "traefik-public" not in db  # what no route reaches stays off the proxy's network


def test_without_conventions_nothing_but_the_routers_is_written():
    text = corpus.text("compose/gitea-postgres")
    plain = rendered(text, proxy={})
    found = yaml.safe_load(plain["yml"])
    assert "networks" not in found and found["services"]["gitea"]["ports"] == ["3000:3000"]
    kept = rendered(text, proxy={"network": "edge", "publish": True})
    assert yaml.safe_load(kept["yml"])["services"]["gitea"]["ports"] == ["3000:3000"]  # published where it says so


def test_a_service_on_the_hosts_network_is_not_joined():
    text = corpus.text("compose/gitea-postgres").replace(GITEA_PORTS, "    network_mode: host\n")
    accepted, project = compose_oracle.config(rendered(text)["yml"])
    assert accepted, project
    assert project["services"]["gitea"]["network_mode"] == "host" and "networks" not in project["services"]["gitea"]


def test_only_admins_choose_the_network_a_teams_services_join(api):
    """Another project's network on the same host would put a team's services beside its database."""
    made = api.post("/profiles", json={"name": "p", "cluster": {"proxy": {"network": "shop_default"}}}, user="alice")
    assert made.status == 403
    own = create(api, "profiles", name="p", cluster={"proxy": {"entrypoints": ["websecure"], "publish": False}}).json
    changed = api.patch(f"/profiles/{own['id']}", json={"cluster": {"proxy": {"network": "edge"}}}, user="admin")
    assert changed.status == 200 and changed.json["cluster"]["proxy"]["network"] == "edge"
    for bad in ({"network": "a b"}, {"entrypoints": ["web,admin"]}, {"certResolver": "x`"}):
        sent = api.patch(f"/profiles/{own['id']}", json={"cluster": {"proxy": bad}}, user="admin")
        assert sent.status == 422, bad
