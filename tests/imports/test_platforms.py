"""`coolify` and `caprover` imports: each platform's catalog as it publishes it (the corpus's copy),
whole and judged by Docker Compose, then single templates for what each platform does itself."""

import re

import jwt
import pytest
import yaml

from support import corpus
from support.http import assert_problem, create
from support.imports import by_key, imported, refused_by_the_tools

# Every template of the corpus that is not created (beside Coolify's `# ignore: true` ones), and
# why, each checked by hand (docs/imports.md): Docker Compose refuses the file itself, or the
# platform's own check refuses its default.
NOT_CREATED = {
    "coolify": {
        "gramps-web": ("refused", "expected a mapping for merging"),
        "langfuse": ("refused", "expected a mapping for merging"),
        "memos": ("refused", "refers to undefined volume 'memos/'"),
    },
    "caprover": {
        "affine": ("refused", "depends on undefined service 'affine-migration'"),
        "airflow": ("refused", "user: null is not of type"),
        "invoiceninja": ("refused", "user: null is not of type"),
        "audiobookshelf": ("refused", 'audiobooks-volume-placeholder" does not match'),
        "bitwardenrs": ("refused", '"True" does not match'),
        "rallly": ("refused", '"False" does not match'),
        "seafile": ("refused", "$$capp_appname-memcached"),
    },
}
PLATFORM_SYNTAX = re.compile(r"\$\$cap_|(?<!\$)\$\{?SERVICE_|srv-captain--|caproverExtra|exclude_from_hc")


def ignored(catalog):
    return {name for name, text in catalog.items() if re.search(r"^# ignore: true", text, re.MULTILINE)}


@pytest.mark.parametrize("app", ["mongomock"], indirect=True)
@pytest.mark.parametrize("platform", ["coolify", "caprover"])
def test_the_catalog_is_created_but_for_the_templates_whose_own_problem_each_result_names(api, platform):
    catalog = corpus.platform_catalog(platform)
    results = by_key(imported(api, platform, catalog))
    offered = len(catalog) - len(ignored(catalog))
    assert sum(result["outcome"] == "created" for result in results.values()) >= 0.95 * offered
    left = {key: result for key, result in results.items() if result["outcome"] != "created"}
    assert sorted(left) == sorted(ignored(catalog) | set(NOT_CREATED[platform]))
    for key in ignored(catalog):
        assert left[key]["outcome"] == "skipped" and "ignore: true" in " ".join(left[key]["notes"])
    for key, (outcome, reason) in NOT_CREATED[platform].items():
        said = " ".join(left[key]["problems"] + left[key]["notes"])
        assert left[key]["outcome"] == outcome and reason in said, (key, left[key])


@pytest.mark.parametrize("app", ["mongomock"], indirect=True)
@pytest.mark.parametrize("platform", ["coolify", "caprover"])
def test_every_created_blueprint_renders_with_a_profiles_defaults_to_a_file_docker_compose_accepts(api, platform):
    report = imported(api, platform, corpus.platform_catalog(platform))
    defaults, conventions = {"memory": "256Mi", "cpu": "250m"}, {"domain": "apps.example.com"}  # no domain typed
    team = create(api, "profiles", name="team", containerDefaults=defaults, cluster=conventions).json
    assert refused_by_the_tools(api, report, team["id"], PLATFORM_SYNTAX, {".env": ""}) == []


def blueprint(api, result):
    return api.get(f"/blueprints/{result['id']}", user="alice").json


def test_coolify_magic_variables_are_generated_or_given_and_a_bare_one_gets_its_value(api):
    (result,) = imported(api, "coolify", {"activepieces": corpus.platform_catalog("coolify")["activepieces"]})[
        "results"
    ]
    made = blueprint(api, result)
    properties = made["parameters"]["properties"]
    assert properties["SERVICE_PASSWORD_64_APIKEY"] == {
        "type": "string",
        "writeOnly": True,
        "x-generate": "[A-Za-z0-9]{64}",
    }
    assert properties["SERVICE_USER_POSTGRES"]["x-generate"] == "[A-Za-z0-9]{16}"
    # its URL, declared with no port: routed to port 80 as Coolify's proxy routes it, its domain given once
    assert (
        properties["SERVICE_FQDN_ACTIVEPIECES"]["format"] == "hostname" and "SERVICE_URL_ACTIVEPIECES" not in properties
    )
    assert "SERVICE_FQDN_ACTIVEPIECES" in made["parameters"]["required"]
    environment = yaml.safe_load(made["yml"])["services"]["activepieces"]["environment"]
    assert "SERVICE_URL_ACTIVEPIECES=https://${SERVICE_FQDN_ACTIVEPIECES}" in environment
    assert [(route["service"], route["port"]) for route in made["routes"]] == [("activepieces", 80)]
    assert (
        "services.activepieces: SERVICE_*_ACTIVEPIECES names no port: routed to port 80, as Coolify's proxy routes it."
        in result["notes"]
    )
    assert made["description"].startswith("Open source no-code business automation.")
    assert {"workflow", "automation"} <= set(made["tags"])


def test_coolify_own_keys_go_and_an_inline_file_is_a_compose_config(api):
    catalog = corpus.platform_catalog("coolify")
    report = by_key(imported(api, "coolify", {name: catalog[name] for name in ("affine", "chaskiq")}))
    assert any("exclude_from_hc: Coolify's own, left out" in note for note in report["affine"]["notes"])
    definition = yaml.safe_load(blueprint(api, report["chaskiq"])["yml"])
    assert definition["configs"]["entrypoint.sh"]["content"].startswith("#!/bin/sh")
    assert '"$$@"' in definition["configs"]["entrypoint.sh"]["content"]  # the file's own `$`, not Compose's
    assert all(
        not isinstance(volume, dict) or "content" not in volume
        for s in definition["services"].values()
        for volume in s.get("volumes", [])
    )


def test_a_coolify_template_marked_ignore_is_skipped_saying_so(api):
    text = "# ignore: true\nservices:\n  web:\n    image: nginx\n"
    (result,) = imported(api, "coolify", {"web": text})["results"]
    assert result["outcome"] == "skipped" and "ignore: true" in " ".join(result["notes"])


def test_a_coolify_template_is_titled_as_coolify_shows_it_and_keyed_by_its_file(api):
    catalog = corpus.platform_catalog("coolify")
    report = by_key(imported(api, "coolify", {name: catalog[name] for name in ("apprise-api", "chaskiq")}))
    assert [report[key]["title"] for key in ("apprise-api", "chaskiq")] == ["Apprise Api", "Chaskiq"]
    made = blueprint(api, report["apprise-api"])
    assert (made["name"], made["source"]["key"]) == ("Apprise Api", "apprise-api")


def test_what_caprover_ignores_and_compose_refuses_is_left_out_with_a_note(api):
    """Published apps, each changed at one node as CapRover's catalog has them: `version` written as
    a number, a network named that nothing declares."""
    text = corpus.platform_catalog("caprover")["activepieces"]
    numbered = text.replace("captainVersion: 4\n", "captainVersion: 4\nversion: 3.3\n")
    networked = text.replace(
        "        restart: always\n", "        restart: always\n        networks: [captain-overlay]\n"
    )
    report = by_key(imported(api, "caprover", {"numbered": numbered, "networked": networked}))
    assert [report[key]["outcome"] for key in ("numbered", "networked")] == ["created", "created"]
    assert (
        "version: 3.3 is no string, which Compose refuses and CapRover ignores: left out."
        in report["numbered"]["notes"]
    )
    said = "services.$$cap_appname.networks: captain-overlay declared nowhere, which CapRover ignores: left out."
    assert said in report["networked"]["notes"]
    for key in ("numbered", "networked"):
        yml = blueprint(api, report[key])["yml"]
        assert "version:" not in yml and "networks" not in yml and "captain-overlay" not in yml


def test_caprover_variables_are_parameters_and_names_are_placed_at_import(api):
    catalog = corpus.platform_catalog("caprover")
    report = by_key(imported(api, "caprover", {name: catalog[name] for name in ("activepieces", "appwrite")}))
    made = blueprint(api, report["activepieces"])
    assert made["parameters"]["properties"]["cap_appname"]["default"] == "activepieces"
    assert "cap_root_domain" in made["parameters"]["required"]
    environment = yaml.safe_load(made["yml"])["services"]["activepieces"]["environment"]
    assert environment["AP_FRONTEND_URL"] == "http://${cap_appname}.${cap_root_domain}"
    result = report["appwrite"]
    definition = yaml.safe_load(blueprint(api, result)["yml"])
    redis = definition["services"]["appwrite-redis"]
    assert redis["build"]["dockerfile_inline"].startswith("FROM redis:7.0.4-alpine\n") and "image" not in redis
    assert definition["services"]["appwrite"]["environment"]["_APP_REDIS_HOST"] == "appwrite-redis"
    assert "appwrite-redis" in definition["volumes"]
    # the web app is routed where CapRover serves it; its database, `notExposeAsWebApp`, is not
    routes = {route["service"]: route for route in blueprint(api, result)["routes"]}
    assert set(routes) == {"appwrite"} and routes["appwrite"]["port"] == 80
    assert made["routes"][0]["host"] == "activepieces.example.com"  # `$$cap_appname.$$cap_root_domain`, as checked


def test_a_caprover_random_hex_default_is_generated_and_valid_regex_is_the_pattern(api):
    text = (
        "captainVersion: 4\nservices:\n  $$cap_appname:\n    image: redis\n    environment:\n"
        "      PASSWORD: $$cap_pw\n      FLAG: $$cap_flag\n      COST: 5$ a month\n"
        "caproverOneClickApp:\n  variables:\n    - id: $$cap_pw\n      defaultValue: $$cap_gen_random_hex(16)\n"
        "    - id: $$cap_flag\n      defaultValue: 'true'\n      validRegex: /^(true|false)$/\n"
    )
    (result,) = imported(api, "caprover", {"cache": text})["results"]
    made = blueprint(api, result)
    properties = made["parameters"]["properties"]
    assert properties["cap_pw"] == {"type": "string", "writeOnly": True, "x-generate": "[0-9a-f]{16}"}
    assert properties["cap_flag"]["pattern"] == "^(true|false)$"
    environment = yaml.safe_load(made["yml"])["services"]["cache"]["environment"]
    assert environment == {"PASSWORD": "${cap_pw}", "FLAG": "${cap_flag}", "COST": "5$$ a month"}


@pytest.mark.parametrize("platform", ["coolify", "caprover"])
@pytest.mark.parametrize("document", [[{"a": "services: {}"}], {"a": {"services": {}}}])
def test_a_document_that_is_not_a_catalog_of_texts_is_a_422_naming_it(api, platform, document):
    response = api.post("/imports", json={"format": platform, "source": "s", "document": document}, user="alice")
    assert "catalog" in assert_problem(response, 422)["errors"]["document"][0]


def test_supabase_s_keys_are_jwts_signed_with_its_generated_secret(api):
    (result,) = imported(api, "coolify", {"supabase": corpus.platform_catalog("coolify")["supabase"]})["results"]
    assert result["outcome"] == "created", result
    declared = blueprint(api, result)["parameters"]
    values = {name: declared["properties"][name].get("examples", ["x"])[0] for name in declared.get("required", [])}
    render = api.post(f"/blueprints/{result['id']}/render", json={"values": values}, user="alice").json
    definition = yaml.safe_load(render["yml"])
    secret = next(
        item.split("=", 1)[1]
        for s in definition["services"].values()
        for item in s.get("environment", []) or []
        if isinstance(item, str) and item.startswith("JWT_SECRET=")
    )
    keys = {
        item.split("=", 1)[0]: item.split("=", 1)[1]
        for s in definition["services"].values()
        for item in s.get("environment", []) or []
        if isinstance(item, str) and item.startswith("SUPABASE_")
    }
    assert jwt.decode(keys["SUPABASE_ANON_KEY"], secret, algorithms=["HS256"])["role"] == "anon"
    assert jwt.decode(keys["SUPABASE_SERVICE_KEY"], secret, algorithms=["HS256"])["role"] == "service_role"


def test_a_variable_whose_name_says_it_is_a_secret_is_imported_write_only(api):
    """SMTP_PASS with a default was a plain parameter: written as `value:` in the Deployment and
    printed by `bpctl instance get`."""
    document = (
        "services:\n  mail:\n    image: x\n    environment:\n      SMTP_PASS: ${SMTP_PASS:-changeme}\n"
        "      MAIL_OPTIONS_AUTH_PASS: ${MAIL_OPTIONS_AUTH_PASS:-changeme}\n      SMTP_HOST: ${SMTP_HOST:-mail}\n"
        '    labels: ["auth=${API_TOKEN:-x}"]\n'
    )
    result = imported(api, "compose", document, defaults={"name": "mail"})["results"][0]
    assert result["outcome"] == "created", result
    properties = api.get(f"/blueprints/{result['id']}", user="alice").json["parameters"]["properties"]
    assert properties["SMTP_PASS"]["writeOnly"] is properties["MAIL_OPTIONS_AUTH_PASS"]["writeOnly"] is True
    assert "writeOnly" not in properties["SMTP_HOST"] and "writeOnly" not in properties["API_TOKEN"]
    assert (
        "API_TOKEN: its name says it is a secret, but it stands at services.mail.labels.0; left readable."
        in result["notes"]
    )
    render = api.post(f"/blueprints/{result['id']}/render", json={"target": "kubernetes"}, user="alice").json
    assert render["values"]["SMTP_PASS"] is None and "changeme" not in render["yml"].split("kind: Deployment")[1]


def test_a_coolify_variable_the_platform_leaves_unset_is_optional_and_an_external_key_is_asked_for(api):
    """Coolify leaves `${VAR}` without a default empty: Supabase's SMTP settings and mail templates
    are optional here too, its OpenAI key (issued elsewhere) is asked for, never generated, and
    Ghost asks only for its domain."""
    catalog = corpus.platform_catalog("coolify")
    report = by_key(imported(api, "coolify", {name: catalog[name] for name in ("supabase", "ghost")}))
    supabase = blueprint(api, report["supabase"])["parameters"]
    assert supabase["required"] == ["SERVICE_FQDN_SUPABASEKONG_8000", "OPENAI_API_KEY"]
    key = supabase["properties"]["OPENAI_API_KEY"]
    assert key["writeOnly"] is True and "x-generate" not in key
    optional = [name for name, schema in supabase["properties"].items() if schema.get("default") == ""]
    assert "SMTP_HOST" in optional and len(optional) >= 10
    assert blueprint(api, report["ghost"])["parameters"]["required"] == ["SERVICE_FQDN_GHOST_2368"]
    rendered = api.post(f"/blueprints/{report['supabase']['id']}/render", json={"values": {}}, user="alice")
    assert rendered.status == 422 and "values.OPENAI_API_KEY" in rendered.json["errors"]
    given = {"values": {"OPENAI_API_KEY": "sk-example", "SERVICE_FQDN_SUPABASEKONG_8000": "db.example.com"}}
    rendered = api.post(f"/blueprints/{report['supabase']['id']}/render", json=given, user="alice")
    assert rendered.status == 200, rendered.json
    assert {"path": "values.SMTP_HOST", "outcome": "approximated"}.items() <= next(
        note for note in rendered.json["notes"] if note["path"] == "values.SMTP_HOST"
    ).items()
