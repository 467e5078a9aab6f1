"""Domains without typing: a parameter marked `"x-role": "domain"` that a render or an admission
leaves empty takes the profile's domain (the first `<instance>.<domain>`, each further one
`<service>-<instance>.<domain>`, a `uri` one with `https://`), the template's own prefix kept; the
render's `routes` show the hosts before anything is deployed. Real files: Gitea's Compose file
changed at one node, and Dokploy's and Coolify's templates as they publish them."""

import yaml

from support import corpus
from support.http import assert_problem, create
from support.imports import by_key, imported

ROUTED = """x-routes:
  - {service: gitea, port: 3000, host: "${DOMAIN}"}
  - {service: db, port: 5432, host: "admin-${ADMIN}"}
"""
MARKED = {
    "type": "object",
    "properties": {
        "DOMAIN": {"type": "string", "x-role": "domain", "default": ""},
        "ADMIN": {"type": "string", "x-role": "domain", "default": "db.example.com"},
        "ROOT_URL": {"type": "string", "format": "uri", "x-role": "domain", "default": "https://localhost"},
    },
}


def gitea(api):
    text = corpus.text("compose/gitea-postgres").replace(
        "    environment:\n", "    environment:\n      - GITEA__server__ROOT_URL=${ROOT_URL}\n", 1
    )
    made = create(api, "blueprints", name="gitea", blueprintType="compose", yml=text + ROUTED, parameters=MARKED)
    assert made.status == 201, made.json
    return made.json


def team(api, domain="apps.example.com"):
    return create(api, "profiles", name="team", containerDefaults={"memory": "256Mi"}, cluster={"domain": domain}).json


def test_domains_left_empty_are_the_profiles_and_shown_before_deploying(api):
    made, profile = gitea(api), team(api)
    rendered = api.post(f"/blueprints/{made['id']}/render", json={"profile": profile["id"]}, user="alice")
    assert rendered.status == 200, rendered.json
    assert rendered.json["values"] == {
        "DOMAIN": "gitea.apps.example.com",
        "ADMIN": "db-gitea.apps.example.com",  # its service's, after the first
        "ROOT_URL": "https://gitea-gitea.apps.example.com",
    }
    assert [(route["service"], route["host"]) for route in rendered.json["routes"]] == [
        ("gitea", "gitea.apps.example.com"),
        ("db", "admin-db-gitea.apps.example.com"),  # the template's own prefix kept
    ]
    environment = yaml.safe_load(rendered.json["yml"])["services"]["gitea"]["environment"]
    assert "GITEA__server__ROOT_URL=https://gitea-gitea.apps.example.com" in environment
    assert not any(note["path"].startswith("values.") for note in rendered.json.get("notes", []))
    given = {"profile": profile["id"], "values": {"DOMAIN": "code.apps.example.com"}}
    typed = api.post(f"/blueprints/{made['id']}/render", json=given, user="alice").json
    assert typed["values"]["DOMAIN"] == "code.apps.example.com"  # a value given is kept
    assert typed["values"]["ADMIN"] == "gitea.apps.example.com"  # the first left empty
    bare = api.post(f"/blueprints/{made['id']}/render", json={}, user="alice").json
    assert bare["values"]["DOMAIN"] == "" and bare["values"]["ROOT_URL"] == "https://localhost"  # no profile


def test_an_admission_fills_them_for_its_instance_and_keeps_them(api):
    made, profile = gitea(api), team(api)
    sent = {"name": "code", "blueprint": made["id"], "profile": profile["id"]}
    admitted = api.post("/instances", json=sent, user="alice")
    assert admitted.status == 201, admitted.json
    assert admitted.json["values"]["DOMAIN"] == "code.apps.example.com"
    text = api.get(f"/instances/{admitted.json['id']}/yml", user="alice").body.decode()
    assert "Host(`code.apps.example.com`)" in text and "Host(`admin-db-code.apps.example.com`)" in text
    upgraded = api.post(f"/instances/{admitted.json['id']}/upgrade", json={}, user="alice")
    assert upgraded.status == 200, upgraded.json
    assert upgraded.json["values"]["DOMAIN"] == "code.apps.example.com"
    again = api.post("/instances", json={**sent, "name": "code2"}, user="alice")
    assert again.status == 201, again.json  # hosts of its own name: nothing held twice
    assert again.json["values"]["DOMAIN"] == "code2.apps.example.com"


def test_a_role_is_only_for_text_and_only_domain(api):
    for schema, field in (
        ({"type": "integer", "default": 1, "x-role": "domain"}, "x-role"),
        ({"type": "string", "default": "", "x-role": "port"}, "x-role"),
    ):
        parameters = {"type": "object", "properties": {"P": schema}}
        body = {"name": "x", "blueprintType": "compose", "yml": "services: {a: {image: a}}\n", "parameters": parameters}
        assert field in str(assert_problem(api.post("/blueprints", json=body, user="alice"), 422)["errors"])


def test_every_platforms_domain_is_marked_and_filled_with_the_templates_prefix_kept(api):
    catalog = corpus.dokploy_catalog()
    (result,) = imported(api, "dokploy", {"capso": catalog["capso"]})["results"]
    declared = api.get(f"/blueprints/{result['id']}", user="alice").json["parameters"]["properties"]
    assert [name for name, schema in declared.items() if schema.get("x-role") == "domain"] == ["main_domain"]
    profile = team(api)
    rendered = api.post(f"/blueprints/{result['id']}/render", json={"profile": profile["id"]}, user="alice").json
    assert [(route["service"], route["port"], route["host"]) for route in rendered["routes"]] == [
        ("cap-web", 3000, "cap-so.apps.example.com"),
        ("minio", 3902, "minio-cap-so.apps.example.com"),  # `host = "minio_domain_1"`, a slip: no host
        ("minio", 3903, "minio-3903-cap-so.apps.example.com"),
    ]
    coolify = imported(api, "coolify", {"babybuddy": corpus.platform_catalog("coolify")["babybuddy"]})
    made = by_key(coolify)["babybuddy"]
    rendered = api.post(f"/blueprints/{made['id']}/render", json={"profile": profile["id"]}, user="alice").json
    assert [route["host"] for route in rendered["routes"]] == ["babybuddy.apps.example.com"]  # `- SERVICE_URL_…`
    assert [(route["port"]) for route in rendered["routes"]] == [80]


def test_a_compose_files_variable_that_only_a_routes_host_uses_is_a_domain(api):
    """Gitea's file changed at one node: a Traefik router whose host is a variable, as people label
    their services; `${DOMAIN}` stands nowhere else, `${ROOT}` also in the environment."""
    labelled = corpus.text("compose/gitea-postgres").replace(
        "    restart: always\n    volumes:\n      - git_data:/data\n",
        "    restart: always\n    volumes:\n      - git_data:/data\n    labels:\n"
        "      - traefik.http.routers.git.rule=Host(`${DOMAIN}`) || Host(`git.${ROOT}`)\n"
        "      - traefik.http.services.git.loadbalancer.server.port=3000\n"
        "      - ROOT_URL=${ROOT}\n",
        1,
    )
    (result,) = imported(api, "compose", labelled, defaults={"name": "gitea"})["results"]
    assert result["outcome"] == "created", result
    properties = api.get(f"/blueprints/{result['id']}", user="alice").json["parameters"]["properties"]
    assert properties["DOMAIN"].get("x-role") == "domain" and "x-role" not in properties["ROOT"], properties
    rendered = api.post(
        f"/blueprints/{result['id']}/render",
        json={"profile": team(api)["id"], "values": {"ROOT": "apps.example.com"}},
        user="alice",
    )
    assert rendered.status == 200, rendered.json
    assert "Host(`gitea.apps.example.com`)" in rendered.json["yml"]
