"""Every catalog template that says where it answers comes in with a route: Dokploy's
`[[config.domains]]`, Coolify's `SERVICE_URL_<SVC>_<PORT>` and `SERVICE_FQDN_<SVC>_<PORT>` (and
`- SERVICE_URL_<SVC>`, to port 80),
and CapRover's `containerHttpPort` (no Portainer template of the corpus has a Traefik router with a
Host rule). Both of its renders route it: the catalogs' whole-render tests (`refused_by_the_tools`)
check each route."""

import re
import tomllib

import pytest
import yaml

from support import corpus
from support.http import create
from support.imports import by_key, imported

# a domain Coolify's proxy routes: to the port named, else (a declaration `- SERVICE_URL_APP`) to 80
COOLIFY_ROUTED = re.compile(r"SERVICE_(?:URL|FQDN)_[A-Za-z0-9_]+?_[0-9]{1,5}\b|^ +- SERVICE_(?:URL|FQDN)_\w+$", re.M)


def dokploy_declares(files):
    try:
        domains = tomllib.loads(files.get("template.toml", "")).get("config", {}).get("domains", [])
    except tomllib.TOMLDecodeError:
        return False
    compose = yaml.safe_load(files.get("docker-compose.yml", "")) or {}
    return any(domain.get("serviceName") in (compose.get("services") or {}) for domain in domains)


def caprover_declares(text):
    """Whether CapRover serves a web app of the template: one with a `containerHttpPort`, or the
    app itself (`$$cap_appname`, on port 80), not marked `notExposeAsWebApp`."""
    services = (yaml.safe_load(text) or {}).get("services") or {}
    for name, service in services.items():
        extra = (service or {}).get("caproverExtra") or {}
        port = str(extra.get("containerHttpPort", "80" if name == "$$cap_appname" else ""))
        if port.isdigit() and str(extra.get("notExposeAsWebApp", "")).lower() != "true":
            return True
    return False


def routed(api, report):
    """{template key: its blueprint's routes} of what the import created."""
    return {
        key: api.get(f"/blueprints/{result['id']}", user="alice").json["routes"]
        for key, result in by_key(report).items()
        if result["outcome"] == "created"
    }


@pytest.mark.parametrize("app", ["mongomock"], indirect=True)
def test_every_dokploy_template_with_a_domain_has_a_route(api):
    catalog = corpus.dokploy_catalog()
    made = routed(api, imported(api, "dokploy", catalog))
    declaring = {key for key in made if dokploy_declares(catalog[key])}
    assert len(declaring) > 350
    assert [key for key in declaring if not made[key]] == []
    assert [key for key in set(made) - declaring if made[key]] == []


@pytest.mark.parametrize("app", ["mongomock"], indirect=True)
@pytest.mark.parametrize(
    "platform, declares, least", [("coolify", COOLIFY_ROUTED.search, 200), ("caprover", caprover_declares, 150)]
)
def test_every_platform_template_with_a_domain_has_a_route(api, platform, declares, least):
    catalog = corpus.platform_catalog(platform)
    made = routed(api, imported(api, platform, catalog))
    declaring = {key for key in made if declares(catalog[key])}
    assert len(declaring) > least
    assert [key for key in declaring if not made[key]] == []


def test_a_coolify_url_and_its_domain_are_given_once(api):
    (result,) = imported(api, "coolify", {"gitea": corpus.platform_catalog("coolify")["gitea-with-mariadb"]})["results"]
    blueprint = api.get(f"/blueprints/{result['id']}", user="alice").json
    assert blueprint["routes"] == [
        {"service": "gitea", "port": 3000, "host": "app.example.com", "path": "/", "tls": True}
    ]
    required = blueprint["parameters"]["required"]
    assert "SERVICE_FQDN_GITEA_3000" in required and not any(name.startswith("SERVICE_URL_") for name in required)
    team = create(api, "profiles", name="team", containerDefaults={"memory": "256Mi", "cpu": "250m"}).json
    body = {"values": {"SERVICE_FQDN_GITEA_3000": "git.team.example"}, "profile": team["id"]}
    text = api.post(f"/blueprints/{result['id']}/render", json=body, user="alice").json["yml"]
    gitea = yaml.safe_load(text)["services"]["gitea"]
    assert "SERVICE_URL_GITEA_3000=https://git.team.example" in gitea["environment"]
    assert gitea["labels"]["traefik.http.routers.gitea-gitea-0.rule"] == "Host(`git.team.example`)"


def test_a_renamed_service_is_reached_by_its_new_name_where_another_names_it_as_a_host(api):
    """Dokploy's Rybbit names `rybbit_clickhouse` and `rybbit_postgres` as hosts; on Kubernetes
    they are the Services `rybbit-clickhouse` and `rybbit-postgres`."""
    (result,) = imported(api, "dokploy", {"rybbit": corpus.dokploy_catalog()["rybbit"]})["results"]
    assert result["outcome"] == "created", result
    declared = api.get(f"/blueprints/{result['id']}", user="alice").json["parameters"]
    values = {name: declared["properties"][name].get("examples", ["x"])[0] for name in declared.get("required", [])}
    rendered = api.post(
        f"/blueprints/{result['id']}/render", json={"values": values, "target": "kubernetes"}, user="alice"
    )
    assert rendered.status == 200, rendered.json
    found = [one for one in yaml.safe_load_all(rendered.json["yml"]) if one]
    services = {one["metadata"]["name"] for one in found if one["kind"] == "Service"}
    backend = next(one for one in found if one["kind"] == "Deployment" and one["metadata"]["name"] == "rybbit-backend")
    env = {one["name"]: one.get("value") for one in backend["spec"]["template"]["spec"]["containers"][0]["env"]}
    assert env["CLICKHOUSE_HOST"] == "http://rybbit-clickhouse:8123" and env["POSTGRES_HOST"] == "rybbit-postgres"
    assert {"rybbit-clickhouse", "rybbit-postgres"} <= services
    renamed = [note for note in rendered.json["notes"] if "renamed service" in note["why"]]
    assert len([note for note in renamed if note["path"].startswith("services.rybbit_backend.environment.")]) >= 2
    assert all(note["outcome"] == "approximated" for note in renamed)
