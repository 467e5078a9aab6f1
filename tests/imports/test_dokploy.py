"""A `dokploy` import: Dokploy's catalog as it publishes it (the corpus's copy), whole, then single
templates changed at one node: helpers generated, variables derived from variables written out,
mounted files carried as Compose configs, and Docker Compose the judge of every render."""

import re

import jwt
import pytest
import yaml

from support import compose_oracle as oracle
from support import corpus
from support.http import assert_problem, create
from support.imports import by_key, imported, refused_by_the_tools

# Every template of the corpus that is not created, and why, each checked by hand (docs/imports.md)
NOT_CREATED = {
    "backrest": ("refused", "refers to undefined volume 'backrest/data'"),  # Docker Compose refuses it too
    "habitica": ("refused", "${base64:756} makes 1008 characters"),
    "signoz": ("refused", "template.toml: Unescaped '\\' in a string"),
    "timescaledb": ("refused", "template.toml: Cannot mutate immutable namespace ('config', 'mounts')"),
    "valkey": ("refused", "template.toml: Cannot mutate immutable namespace ('config', 'mounts')"),
    "picsur": ("skipped", "${jwt:jwt_secret}: a JWT signed with a fixed text"),  # its own, literally
}
DOKPLOY_EXPIRY = 1_893_456_000  # 2030-01-01
PLATFORM_SYNTAX = re.compile(r"\$\{(?:domain|password|base64|hash|jwt|uuid|username|email|randomPort)\b")


def ackee(**changes):
    """The catalog's Ackee template, its files changed as given."""
    return {"ackee": {**corpus.dokploy_catalog()["ackee"], **changes}}


def parameters_of(api, result):
    return api.get(f"/blueprints/{result['id']}", user="alice").json["parameters"]


@pytest.mark.parametrize("app", ["mongomock"], indirect=True)
def test_the_catalog_is_created_but_for_the_templates_whose_own_problem_each_result_names(api):
    report = imported(api, "dokploy", corpus.dokploy_catalog())
    results = by_key(report)
    assert report["counts"]["created"] >= 0.95 * len(results)
    left = {key: result for key, result in results.items() if result["outcome"] != "created"}
    assert sorted(left) == sorted(NOT_CREATED)
    for key, (outcome, reason) in NOT_CREATED.items():
        said = " ".join(left[key]["problems"] + left[key]["notes"])
        assert left[key]["outcome"] == outcome and reason in said, (key, left[key])


@pytest.mark.parametrize("app", ["mongomock"], indirect=True)
def test_every_created_blueprint_renders_with_a_profiles_defaults_to_a_file_docker_compose_accepts(api):
    report = imported(api, "dokploy", corpus.dokploy_catalog())
    defaults, conventions = {"memory": "256Mi", "cpu": "250m"}, {"domain": "apps.example.com"}  # no domain typed
    team = create(api, "profiles", name="team", containerDefaults=defaults, cluster=conventions).json
    assert refused_by_the_tools(api, report, team["id"], PLATFORM_SYNTAX, {".env": ""}) == []


def test_helpers_are_generated_parameters_and_a_derived_variable_is_written_where_it_is_used(api):
    result = imported(api, "dokploy", ackee())["results"][0]
    assert result["outcome"] == "created" and result["title"] == "Ackee"
    properties = parameters_of(api, result)["properties"]
    assert properties["ACKEE_PASSWORD"] == {"type": "string", "writeOnly": True, "x-generate": "[a-z0-9]{16}"}
    assert properties["ACKEE_USERNAME"] == {"type": "string", "default": "default"}
    assert "ACKEE_MONGODB" not in properties  # derived from MONGO_INITDB_ROOT_PASSWORD
    blueprint = api.get(f"/blueprints/{result['id']}", user="alice").json
    assert blueprint["version"] == "latest" and "analytics" in blueprint["tags"]
    environment = yaml.safe_load(blueprint["yml"])["services"]["ackee"]["environment"]
    assert "ACKEE_MONGODB=mongodb://mongo:${MONGO_INITDB_ROOT_PASSWORD}@mongo:27017" in environment
    conventions = {"domain": "apps.example.com"}  # the route's host, which the template leaves to its domain
    team = create(
        api, "profiles", name="team", containerDefaults={"memory": "256Mi", "cpu": "250m"}, cluster=conventions
    ).json
    deployed = api.post(
        "/instances", json={"name": "stats", "blueprint": result["id"], "profile": team["id"]}, user="alice"
    )
    assert deployed.status == 201, deployed.json
    project = yaml.safe_load(api.get(f"/instances/{deployed.json['id']}/yml", user="alice").body)
    password = project["services"]["mongo"]["environment"][0].split("=", 1)[1]
    assert re.fullmatch(r"[a-z0-9]{16}", password)
    assert f"ACKEE_MONGODB=mongodb://mongo:{password}@mongo:27017" in project["services"]["ackee"]["environment"]


def test_a_helper_comes_before_a_variable_of_its_name_as_dokploy_reads_it(api):
    """Flatnotes declares `username = "${username}"` and sets `FLATNOTES_USERNAME = "${username}"`:
    Dokploy generates that value with its helper, not from the variable."""
    template = corpus.dokploy_catalog()["flatnotes"]
    result = imported(api, "dokploy", {"flatnotes": template})["results"][0]
    assert parameters_of(api, result)["properties"]["FLATNOTES_USERNAME"]["x-generate"] == "[a-z]{8}"


def test_a_mounted_file_is_a_compose_config_with_its_content(api):
    result = imported(api, "dokploy", {"appwrite": corpus.dokploy_catalog()["appwrite"]})["results"][0]
    definition = yaml.safe_load(api.get(f"/blueprints/{result['id']}", user="alice").json["yml"])
    mongo = definition["services"]["mongodb"]
    assert {"source": "mongo-init.js", "target": "/docker-entrypoint-initdb.d/mongo-init.js"} in mongo["configs"]
    assert definition["configs"]["mongo-init.js"]["content"].startswith("// mongo-init.js")
    assert not any("files/mongo-init.js" in str(volume) for volume in mongo.get("volumes", []))


def test_variables_that_name_each_other_in_a_circle_are_refused_naming_them(api):
    toml = '[variables]\na = "${b}"\nb = "x-${a}"\n\n[config.env]\nACKEE_USERNAME = "${a}"\n'
    result = imported(api, "dokploy", ackee(**{"template.toml": toml}))["results"][0]
    assert result["outcome"] == "refused" and "variables.a: names itself" in " ".join(result["problems"])


def test_a_compose_placeholder_in_a_variable_stays_one(api):
    toml = '[variables]\nport = "${PORT:-3000}"\n\n[config.env]\nACKEE_USERNAME = "${port}"\n'
    result = imported(api, "dokploy", ackee(**{"template.toml": toml}))["results"][0]
    assert parameters_of(api, result)["properties"]["PORT"]["default"] == "3000"


def test_a_re_import_of_the_same_catalog_changes_nothing(api):
    catalog = {key: corpus.dokploy_catalog()[key] for key in ("ackee", "appwrite", "flatnotes")}
    imported(api, "dokploy", catalog)
    assert imported(api, "dokploy", catalog)["counts"]["unchanged"] == 3


@pytest.mark.parametrize("document", [[{"ackee": {}}], {"ackee": "services: {}"}, "text"])
def test_a_document_that_is_not_a_catalog_of_folders_is_a_422_naming_it(api, document):
    response = api.post("/imports", json={"format": "dokploy", "source": "s", "document": document}, user="alice")
    assert "Dokploy" in assert_problem(response, 422)["errors"]["document"][0]


def test_variables_that_double_each_other_are_refused_before_they_grow_past_a_definition(api):
    """v1 derives 40 KB of text from another variable; each next one holds the one before twice,
    and the env names them in order, so that each is written out once from the one before: v10
    would be 40 MB."""
    names = [f"v{i}" for i in range(1, 11)]
    toml = '[variables]\nv1 = "' + "x" * 40_000 + '${domain}"\n'
    toml += "".join(f'{name} = "${{{before}}}${{{before}}}"\n' for before, name in zip(names, names[1:], strict=False))
    toml += "\n[config.env]\n" + "".join(f'K{i} = "${{{name}}}"\n' for i, name in enumerate(names))
    result = imported(api, "dokploy", ackee(**{"template.toml": toml}))["results"][0]
    assert result["outcome"] == "refused"
    assert "larger than a definition may be" in " ".join(result["problems"])


def test_a_value_written_into_every_variable_of_the_file_is_bounded_too(api):
    toml = '[variables]\nbig = "' + "x" * 200_000 + '${domain}"\n\n[config.env]\nACKEE_USERNAME = "${big}"\n'
    compose = "services:\n  a:\n    image: x\n    environment:\n" + "".join(
        f"      - V{i}=${{ACKEE_USERNAME}}\n" for i in range(10)
    )
    result = imported(api, "dokploy", ackee(**{"template.toml": toml, "docker-compose.yml": compose}))["results"][0]
    assert result["outcome"] == "refused"
    assert "larger than a definition may be" in " ".join(result["problems"])


def test_a_dokploy_jwt_is_signed_with_the_variable_it_names(api):
    """Vikunja: `jwt_secret = "${jwt:db_password}"`, a token Dokploy signs with the database password."""
    result = imported(api, "dokploy", {"vikunja": corpus.dokploy_catalog()["vikunja"]})["results"][0]
    assert result["outcome"] == "created", result
    declared = parameters_of(api, result)["properties"]["jwt_secret"]["x-generate"]
    assert declared == {"jwt": {"secret": "db_password", "claims": {"iss": "dokploy", "exp": DOKPLOY_EXPIRY}}}
    values = {"main_domain": "app.example.com", "VIKUNJA_PUBLIC_PORT": "3456"}  # the two it requires
    render = api.post(f"/blueprints/{result['id']}/render", json={"values": values}, user="alice").json
    environment = yaml.safe_load(render["yml"])["services"]["vikunja"]["environment"]
    token, password = environment["VIKUNJA_SERVICE_JWTSECRET"], environment["VIKUNJA_DATABASE_PASSWORD"]
    assert jwt.decode(token, password, algorithms=["HS256"])["iss"] == "dokploy"


def test_a_helper_inside_a_longer_value_is_a_parameter_of_its_own_whatever_its_variable_is_named(api):
    toml = '[variables]\n"admin-name" = "admin-${password:8}"\n\n[config.env]\nACKEE_USERNAME = "${admin-name}"\n'
    result = imported(api, "dokploy", ackee(**{"template.toml": toml}))["results"][0]
    assert result["outcome"] == "created", result
    properties = parameters_of(api, result)["properties"]
    assert properties["admin_name_1"] == {"type": "string", "writeOnly": True, "x-generate": "[a-z0-9]{8}"}
    environment = yaml.safe_load(api.get(f"/blueprints/{result['id']}", user="alice").json["yml"])
    assert "ACKEE_USERNAME=admin-${admin_name_1}" in environment["services"]["ackee"]["environment"]


@pytest.mark.parametrize("app", ["mongomock"], indirect=True)
@pytest.mark.parametrize(
    ("files", "said"),
    [
        ({"meta.json": "[" * 1000 + "]" * 1000}, "meta.json: nested deeper than 100 levels"),
        ({"template.toml": "a = " + "[" * 1000 + "]" * 1000}, "template.toml: nested deeper than 100 levels"),
        ({"template.toml": "a = " + "[" * 150 + "]" * 150}, "template.toml: nested deeper than 100 levels"),
    ],
)
def test_a_file_nested_past_what_its_parser_holds_is_refused_naming_it(api, files, said):
    result = imported(api, "dokploy", ackee(**files))["results"][0]
    assert result["outcome"] == "refused" and said in " ".join(result["problems"])


def test_a_jwt_payload_nested_past_the_parser_signs_no_payload(api):
    vikunja = corpus.dokploy_catalog()["vikunja"]
    payload = '{"a":' * 1000 + "1" + "}" * 1000
    toml = vikunja["template.toml"].replace('"${jwt:db_password}"', f"'${{jwt:db_password:{payload}}}'")
    result = imported(api, "dokploy", {"vikunja": {**vikunja, "template.toml": toml}})["results"][0]
    assert result["outcome"] == "created", result
    signed = [one for one in parameters_of(api, result)["properties"].values() if "jwt" in str(one.get("x-generate"))]
    assert [one["x-generate"]["jwt"]["claims"] for one in signed] == [{"iss": "dokploy", "exp": DOKPLOY_EXPIRY}]


def test_files_mounted_past_what_a_definition_holds_are_refused_saying_which_file_grew_and_why(api):
    """Chirpstack's shape: a Compose file of a few hundred bytes mounting large configuration files
    from its template.toml: the refusal names both and what to do, not the small file's size."""
    catalog = corpus.dokploy_catalog()["ackee"]
    part = (
        '[[config.mounts]]\nfilePath = "part{0}.toml"\ncontent = """\n' + "# a line of configuration\n" * 1500 + '"""\n'
    )
    toml = catalog["template.toml"].replace("[config]\n", "[config]\n" + "".join(part.format(i) for i in range(8)), 1)
    mounted = "".join(f"\n      - ../files/part{i}.toml:/etc/part{i}.toml:ro" for i in range(8))
    compose = catalog["docker-compose.yml"].replace(
        "      - mongo-data:/data/db", "      - mongo-data:/data/db" + mounted
    )
    result = imported(api, "dokploy", ackee(**{"template.toml": toml, "docker-compose.yml": compose}))["results"][0]
    assert result["outcome"] == "refused"
    [problem] = result["problems"]
    assert problem.startswith(f"docker-compose.yml ({len(compose):,} bytes) is ")
    assert "with the 8 files template.toml mounts written into it as configs" in problem
    assert problem.endswith("a definition holds at most 256 KiB: mount fewer or smaller files.")


def test_a_mounted_file_reads_a_generated_value_as_the_platform_generates_it(api):
    """Supabase's shape: `logflare_api_key = "${password:32}"`, `LOGFLARE_API_KEY` in the env, and
    a mounted file that reads `${LOGFLARE_API_KEY?...}`: it was a value a person had to give."""
    catalog = corpus.dokploy_catalog()["ackee"]
    mount = '[[config.mounts]]\nfilePath = "vector.yml"\ncontent = "api_key: ${LOGFLARE_API_KEY?required}"\n'
    toml = (
        catalog["template.toml"]
        .replace("[config]\n", "[config]\n" + mount, 1)
        .replace("[variables]\n", '[variables]\nlogflare_api_key = "${password:32}"\n')
        .replace("[config.env]\n", '[config.env]\nLOGFLARE_API_KEY = "${logflare_api_key}"\n')
    )
    compose = catalog["docker-compose.yml"].replace(
        "      - mongo-data:/data/db", "      - mongo-data:/data/db\n      - ../files/vector.yml:/etc/vector.yml:ro"
    )
    result = imported(api, "dokploy", ackee(**{"template.toml": toml, "docker-compose.yml": compose}))["results"][0]
    declared = parameters_of(api, result)
    assert declared["properties"]["logflare_api_key"] == {
        "type": "string",
        "writeOnly": True,
        "x-generate": "[a-z0-9]{32}",
    }
    assert "LOGFLARE_API_KEY" not in declared["properties"] and not declared.get("required")
    render = api.post(f"/blueprints/{result['id']}/render", json={}, user="alice").json
    content = yaml.safe_load(render["yml"])["configs"]["vector.yml"]["content"]
    assert re.fullmatch(r"api_key: [a-z0-9]{32}", content)


def test_config_env_reaches_the_service_whose_env_file_is_dokploys_env(api):
    """Plausible's Compose file says `env_file: .env`, the file Dokploy writes `[config.env]` to:
    BASE_URL, SECRET_KEY_BASE and TOTP_VAULT_KEY (two generated) reach the service, with no
    `.env` needed beside the blueprint."""
    (result,) = imported(api, "dokploy", {"plausible": corpus.dokploy_catalog()["plausible"]})["results"]
    assert result["outcome"] == "created", result
    assert any(note.startswith("services.plausible.env_file:") for note in result["notes"])
    properties = parameters_of(api, result)["properties"]
    assert {"x-generate"} <= set(properties["secret_base"]) and {"x-generate"} <= set(properties["totp_key"])
    rendered = api.post(
        f"/blueprints/{result['id']}/render", json={"values": {"main_domain": "stats.example.com"}}, user="alice"
    )
    assert rendered.status == 200, rendered.json
    accepted, project = oracle.config(rendered.json["yml"])  # no .env beside it
    assert accepted, project
    environment = project["services"]["plausible"]["environment"]
    assert environment["BASE_URL"] == "http://stats.example.com"
    assert len(environment["SECRET_KEY_BASE"]) >= 32 and environment["TOTP_VAULT_KEY"]


def test_a_template_file_toml_refuses_says_where_and_how_to_write_it(api):
    catalog = corpus.dokploy_catalog()
    report = by_key(imported(api, "dokploy", {key: catalog[key] for key in ("timescaledb", "signoz")}))
    [twice] = report["timescaledb"]["problems"]
    assert "(at line 16, column 16): a key given a value (`mounts = []`) is written again as a table" in twice
    assert twice.endswith("TOML takes one of the two: remove the value.")
    [backslash] = report["signoz"]["problems"]
    assert "(at line 475, column 39): a backslash between double quotes starts an escape: write it twice" in backslash
