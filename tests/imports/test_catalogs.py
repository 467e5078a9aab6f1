"""POST /imports, GET /exports and a blueprint's OpenShift export: the catalogs of the corpus
(Portainer's own v2 and v3 files with the stack files they name, OpenShift's official templates)
imported, re-imported, refused where they should be, and exported back."""

import json
import re

import pytest
import yaml
from bson import ObjectId

from app import state
from support import compose_oracle as oracle
from support import corpus, probes
from support.apps import make_app
from support.http import FlaskClient, assert_problem
from support.imports import by_key, imported, refused_by_the_tools

V3 = "portainer-templates-v3.json"
V2 = "portainer-templates-v2.json"


def test_portainer_v3_imports_every_template_with_its_file_and_says_why_it_skips_the_rest(api):
    catalog = corpus.portainer_catalog(V3)
    report = imported(api, "portainer", catalog, files=corpus.portainer_files())
    results = by_key(report)
    assert [result["key"] for result in report["results"]] == [str(t["id"]) for t in catalog["templates"]]
    for template in catalog["templates"]:
        result = results[str(template["id"])]
        stack_file = (template.get("repository") or {}).get("stackfile")
        if template["type"] == 1 or stack_file in corpus.portainer_files():
            assert result["outcome"] == "created", (template["title"], result)
        else:
            assert result["outcome"] == "skipped"
            assert template["repository"]["url"] in result["notes"][-1]
    assert {outcome: n for outcome, n in report["counts"].items() if n} == {"created": 68, "skipped": 1}
    registry = api.get(f"/blueprints/{results['1']['id']}", user="alice").json
    assert registry["source"] == {"format": "portainer", "name": "catalog", "key": "1", "rev": 1}
    assert registry["name"] == "Registry" and registry["blueprintType"] == "compose"
    assert yaml.safe_load(registry["yml"])["services"]["registry"]["image"] == "registry:latest"
    assert registry["tags"] == ["docker"]


def test_a_re_import_never_duplicates_and_writes_a_revision_only_where_something_changed(api):
    catalog, files = corpus.portainer_catalog(V3), corpus.portainer_files()
    first = imported(api, "portainer", catalog, files=files)
    again = imported(api, "portainer", catalog, files=files)
    assert again["counts"]["unchanged"] == first["counts"]["created"] == 68
    assert [r["id"] for r in again["results"]] == [r["id"] for r in first["results"]]
    changed = json.loads(json.dumps(catalog))
    changed["templates"][0]["description"] = "A registry, described anew"
    third = by_key(imported(api, "portainer", changed, files=files))
    assert third["1"]["outcome"] == "updated"
    assert sum(r["outcome"] == "updated" for r in third.values()) == 1
    history = api.get(f"/blueprints/{third['1']['id']}/revisions", user="alice").json
    assert [item["rev"] for item in history["items"]] == [2, 1]  # one new revision, none for the rest
    assert api.get(f"/blueprints/{third['1']['id']}", user="alice").json["description"] == "A registry, described anew"
    listed = api.get("/blueprints?limit=200", user="alice").json["items"]
    assert len([item for item in listed if item["source"]]) == 68


def test_a_dry_run_reports_the_same_outcomes_and_stores_nothing(api):
    report = imported(api, "portainer", corpus.portainer_catalog(V3), files=corpus.portainer_files(), dry_run=True)
    assert report["counts"]["created"] == 68
    assert all(result["id"] is None for result in report["results"])
    assert api.get("/blueprints", user="alice").json["items"] == []
    drafts = [result["blueprint"] for result in report["results"] if result["outcome"] == "created"]
    assert all(draft["id"] is None and draft["yml"] and draft["source"]["name"] == "catalog" for draft in drafts)


def test_portainer_v2_keys_repeated_titles_apart_and_skips_edge_stacks(api):
    catalog, files = corpus.portainer_catalog(V2), corpus.portainer_files()
    report = imported(api, "portainer", catalog, files=files)
    keys = [result["key"] for result in report["results"]]
    assert len(set(keys)) == len(keys) and "SQL Server #2" in keys
    for template, result in zip(catalog["templates"], report["results"], strict=True):
        if template["type"] == 4:
            assert result["outcome"] == "skipped" and "Edge" in result["notes"][-1]
        elif template["type"] == 1 or template["repository"]["stackfile"] in files:
            assert result["outcome"] == "created", (template["title"], result)
        else:
            assert result["outcome"] == "skipped" and template["repository"]["stackfile"] in result["notes"][-1]
    assert report["counts"]["refused"] == 0


def test_portainer_env_becomes_string_parameters_with_select_preset_and_a_required_one(api):
    template = {
        "type": 1,
        "title": "Grafana",
        "image": "grafana/grafana:${TAG}",
        "ports": ["3000/tcp"],
        "volumes": [
            {"container": "/var/lib/grafana"},
            {"container": "/etc/x", "bind": "/srv/x", "readonly": True},
            {"container": "/data", "bind": "grafana-data"},
        ],
        "env": [
            {"name": "ADMIN_USER", "label": "Admin user", "default": "admin"},
            {"name": "ADMIN_PASSWORD", "label": "Admin password"},
            {"name": "MODE", "select": [{"text": "A", "value": "a"}, {"text": "B", "value": "b", "default": True}]},
            {"name": "FIXED", "default": "1", "preset": True},
        ],
    }
    result = imported(api, "portainer", {"version": "2", "templates": [template]})["results"][0]
    assert result["outcome"] == "created", result
    blueprint = api.get(f"/blueprints/{result['id']}", user="alice").json
    properties = blueprint["parameters"]["properties"]
    assert properties["ADMIN_USER"] == {"type": "string", "title": "Admin user", "default": "admin"}
    assert properties["MODE"] == {"type": "string", "enum": ["a", "b"], "default": "b"}
    assert properties["FIXED"]["const"] == "1"
    assert blueprint["parameters"]["required"] == ["ADMIN_PASSWORD"]
    assert any(note.startswith("ADMIN_PASSWORD:") for note in result["notes"])
    definition = yaml.safe_load(blueprint["yml"])
    service = definition["services"]["grafana"]
    assert service["image"] == "grafana/grafana:$${TAG}"  # Portainer's text is not a Compose variable
    assert service["volumes"] == ["/var/lib/grafana", "/srv/x:/etc/x:ro", "grafana-data:/data"]
    assert definition["volumes"] == {"grafana-data": {}}  # Portainer makes a named volume; Compose declares it
    assert service["environment"]["ADMIN_PASSWORD"] == "${ADMIN_PASSWORD}"


@pytest.mark.parametrize("app", ["mongomock"], indirect=True)
@pytest.mark.parametrize("catalog", [V2, V3])
def test_every_imported_portainer_blueprint_renders_to_a_file_docker_compose_accepts(api, catalog):
    report = imported(api, "portainer", corpus.portainer_catalog(catalog), files=corpus.portainer_files())
    assert refused_by_the_tools(api, report, files={"stack.env": ""}) == []


def test_openshift_templates_each_have_an_outcome_and_their_parameters(api):
    templates = corpus.openshift_templates()
    report = imported(api, "openshift", list(templates.values()), source="openshift/library")
    assert [r["key"] for r in report["results"]] == [t["metadata"]["name"] for t in templates.values()]
    results = by_key(report)
    assert [result["outcome"] for result in report["results"]] == ["created"] * len(templates), report
    dropped = {
        name for name, result in results.items() if any("capabilities: not a field" in n for n in result["notes"])
    }
    assert dropped == {"mysql-ephemeral", "postgresql-persistent", "redis-persistent"}  # as the API server drops it
    for name, template in [(t["metadata"]["name"], t) for t in templates.values()]:
        blueprint = api.get(f"/blueprints/{results[name]['id']}", user="alice").json
        containers = [
            container
            for doc in yaml.safe_load_all(blueprint["yml"])
            if doc["kind"] == "Deployment"
            for container in doc["spec"]["template"]["spec"]["containers"]
        ]
        assert not any("capabilities" in container for container in containers)
        exported = api.get(f"/blueprints/{results[name]['id']}/export?format=openshift", user="alice").json
        for key in ("openshift.io/display-name", "iconClass"):
            assert exported["metadata"]["annotations"].get(key) == template["metadata"]["annotations"].get(key)
        assert (exported.get("message"), exported.get("labels")) == (template.get("message"), template.get("labels"))
        assert blueprint["blueprintType"] == "kubernetes"
        properties = blueprint["parameters"]["properties"]
        for parameter in template["parameters"]:
            mapped = properties[parameter["name"]]
            assert mapped.get("title") == parameter.get("displayName")
            if "from" in parameter:
                assert mapped["x-generate"] == parameter["from"]
            else:
                assert mapped["default"] == parameter.get("value", "")
        documents = list(yaml.safe_load_all(blueprint["yml"]))
        assert len(documents) == len(template["objects"])
        assert all(doc["metadata"]["labels"].items() >= template["labels"].items() for doc in documents)


def test_a_deployment_config_is_measured_as_a_deployment(api):
    template = {
        "kind": "Template",
        "apiVersion": "template.openshift.io/v1",
        "metadata": {"name": "web"},
        "objects": [
            {
                "kind": "DeploymentConfig",
                "apiVersion": "apps.openshift.io/v1",
                "metadata": {"name": "web"},
                "spec": {
                    "replicas": "${{REPLICAS}}",
                    "template": {
                        "spec": {
                            "containers": [
                                {"name": "web", "image": "nginx", "resources": {"limits": {"memory": "${MEMORY}"}}}
                            ]
                        }
                    },
                },
            }
        ],
        "parameters": [
            {"name": "REPLICAS", "value": "3"},
            {"name": "MEMORY", "value": "256Mi", "required": True},
            {"name": "LABEL"},
            {"name": "SECRET", "generate": "expression", "from": "[\\w]{50}"},
        ],
    }
    result = imported(api, "openshift", template)["results"][0]
    assert result["outcome"] == "created", result
    blueprint = api.get(f"/blueprints/{result['id']}", user="alice").json
    properties = blueprint["parameters"]["properties"]
    assert properties["REPLICAS"] == {"type": "integer", "default": 3}
    assert properties["MEMORY"] == {"type": "string", "default": "256Mi", "minLength": 1}
    assert properties["LABEL"] == {"type": "string", "default": ""}
    assert properties["SECRET"]["x-generate"] == "[\\w]{50}"
    assert "replicas: ${REPLICAS}" in blueprint["yml"]
    assert blueprint["requirements"]["containers"] == 3
    assert blueprint["requirements"]["memoryBytes"] == 3 * 256 * 2**20
    back = api.get(f"/blueprints/{result['id']}/export?format=openshift", user="alice")
    assert back.status == 200
    assert back.json["objects"][0]["spec"]["replicas"] == "${{REPLICAS}}"
    assert {p["name"]: p.get("value") for p in back.json["parameters"]} == {
        "REPLICAS": "3",
        "MEMORY": "256Mi",
        "LABEL": "",
        "SECRET": None,
    }


def test_a_compose_file_and_its_env_make_typed_required_and_secret_parameters(api):
    text = (
        "services:\n  db:\n    image: postgres:${TAG:-16}\n    deploy:\n      replicas: ${REPLICAS:-2}\n"
        "    mem_limit: ${MEM:-512m}\n    environment:\n      POSTGRES_PASSWORD: ${POSTGRES_PASSWORD}\n"
        "      POSTGRES_USER: ${USER_NAME:?set a user}\n      DEBUG: ${DEBUG}\n"
    )
    report = imported(
        api,
        "compose",
        text,
        files={".env": "# the stack\nREPLICAS=3\nexport DEBUG='false'\nUNUSED=1\n"},
        defaults={"name": "pg", "entitlementType": "PUBLIC", "tags": ["db"]},
    )
    result = report["results"][0]
    assert result["outcome"] == "created", result
    blueprint = api.get(f"/blueprints/{result['id']}", user="bob").json
    properties = blueprint["parameters"]["properties"]
    assert properties["REPLICAS"] == {"type": "integer", "default": 3}
    assert properties["TAG"] == {"type": "string", "default": "16"}  # part of a value: text
    assert properties["MEM"] == {"type": "string", "default": "512m"}
    assert properties["DEBUG"] == {"type": "boolean", "default": False}  # a whole value: typed
    assert properties["POSTGRES_PASSWORD"] == {"type": "string", "writeOnly": True, "x-generate": "[A-Za-z0-9]{24}"}
    assert blueprint["parameters"]["required"] == ["USER_NAME"]
    assert blueprint["entitlementType"] == "PUBLIC" and blueprint["tags"] == ["db"]
    assert blueprint["requirements"]["containers"] == 3
    assert any("UNUSED" in note for note in result["notes"])
    proposed = imported(
        api,
        "compose",
        text,
        source="editor",
        dry_run=True,
        defaults={"name": "draft"},
        files={".env": "REPLICAS=3\nexport DEBUG='false'\n"},
    )
    assert proposed["results"][0]["blueprint"]["parameters"] == blueprint["parameters"]  # how the editor proposes them
    render = api.post(f"/blueprints/{result['id']}/render", json={"values": {"USER_NAME": "app"}}, user="bob")
    assert render.status == 200, render.json
    assert oracle.config(render.json["yml"])[0]


@pytest.mark.parametrize(
    ("body", "place"),
    [
        ({"format": "portainer", "document": {"kind": "Template"}}, "document"),
        ({"format": "openshift", "document": {"version": "3", "templates": []}}, "document"),
        ({"format": "native", "document": {"format": "native", "version": 2, "blueprints": []}}, "document"),
        ({"format": "compose", "document": "services: {}\n"}, "document"),
        ({"format": "yaml", "document": {}}, "format"),
        ({"format": "portainer", "document": {"version": "3", "templates": [{}] * 1001}}, "document"),
    ],
)
def test_a_document_of_the_wrong_format_or_too_many_templates_is_a_422_naming_it(api, body, place):
    response = api.post("/imports", json={"source": "s", **body}, user="alice")
    assert response.status == 422
    assert place in response.json["errors"]


@pytest.mark.parametrize(
    ("fmt", "document", "files", "problem"),
    [
        (
            "openshift",
            {
                "kind": "Template",
                "metadata": {"name": "t"},
                "objects": [{"kind": "Service"}],
                "parameters": [{"name": "1BAD", "value": "x"}],
            },
            {},
            "parameters.0.name",
        ),
        (
            "openshift",
            {
                "kind": "Template",
                "metadata": {"name": "t"},
                "objects": [{"kind": "Service"}],
                "parameters": [{"name": "P", "generate": "expression", "from": "[a-z]{9999}"}],
            },
            {},
            "parameters.0.from",
        ),
        (
            "portainer",
            {
                "version": "2",
                "templates": [{"type": 1, "title": "x", "image": "nginx", "env": [{"name": "A"}, {"name": "A"}]}],
            },
            {},
            "env.1.name",
        ),
        (
            "portainer",
            {
                "version": "2",
                "templates": [
                    {"type": 3, "title": "x", "repository": {"url": "https://example.com/r", "stackfile": "s.yml"}}
                ],
            },
            {"s.yml": "services: [\n"},
            "files.s.yml",
        ),
    ],
)
def test_a_template_that_cannot_be_mapped_is_refused_naming_the_place_and_nothing_is_written(
    api, fmt, document, files, problem
):
    result = imported(api, fmt, document, files=files)["results"][0]
    assert result["outcome"] == "refused"
    assert result["problems"][0].startswith(problem), result
    assert api.get("/blueprints", user="alice").json["items"] == []


def test_a_refused_template_never_undoes_another(api):
    good = {"type": 1, "title": "good", "image": "nginx"}
    stack = {"url": "https://example.com/stacks", "stackfile": "bad.yml"}
    bad = {"type": 3, "title": "bad", "repository": stack}
    conflict = "services:\n  web:\n    image: nginx\n    scale: 2\n    deploy: {replicas: 3}\n"
    report = imported(api, "portainer", {"version": "2", "templates": [good, bad]}, files={"bad.yml": conflict})
    assert [r["outcome"] for r in report["results"]] == ["created", "refused"]
    assert report["results"][1]["problems"][0].startswith("yml: ")
    assert [item["name"] for item in api.get("/blueprints", user="alice").json["items"]] == ["good"]


def test_a_refused_templates_title_is_echoed_as_it_reads(api):
    """A title with a bell and a right-to-left override was echoed raw in the report: a terminal rang and the
    report read `bad` backwards."""
    bad = {"type": 3, "title": "ok\u202edab\x07", "repository": {"url": "https://example.com/r", "stackfile": "s.yml"}}
    report = imported(api, "portainer", {"version": "2", "templates": [bad]})
    assert report["results"][0]["outcome"] == "skipped"  # a stack whose file is not given
    assert report["results"][0]["title"] == "ok\\u202edab\\u0007"
    assert not any(character in json.dumps(report, ensure_ascii=False) for character in "\u202e\x07")


def test_an_import_over_16_mib_is_a_413_and_one_a_viewer_sends_a_403(api):
    body = json.dumps({"format": "native", "source": "s", "document": {"pad": "x" * (16 * 2**20)}})
    response = api.post("/imports", data=body, headers={"Content-Type": "application/json"}, user="alice")
    assert response.status == 413
    assert api.post("/imports", json={"format": "native", "source": "s", "document": {}}, user="victor").status == 403


def test_a_source_is_each_owner_s_own_so_nothing_of_another_s_leaks_or_is_taken_over(api):
    """One namespace across users leaked another's private blueprint (its id and owner) to an
    import of the same source, and let a source be squatted."""
    catalog = {"version": "2", "templates": [{"type": 1, "title": "x", "image": "nginx"}]}
    alices = imported(api, "portainer", catalog, user="alice")["results"][0]
    changed = {"version": "2", "templates": [{"type": 1, "title": "x", "image": "nginx:2"}]}
    for dry_run in (True, False):
        report = imported(api, "portainer", changed, user="bob", dry_run=dry_run)
        assert report["results"][0]["outcome"] == "created" and alices["id"] not in json.dumps(report)
        assert "alice" not in json.dumps(report)
    bobs = report["results"][0]["id"]
    assert api.get(f"/blueprints/{alices['id']}", user="alice").json["yml"].count("nginx:2") == 0  # untouched
    again = imported(api, "portainer", catalog, user="alice")["results"][0]
    assert again["outcome"] == "unchanged" and again["id"] == alices["id"]  # bob's import took nothing of hers
    assert sorted(item["id"] for item in api.get("/blueprints", user="admin").json["items"]) == sorted(
        [alices["id"], bobs]
    )


def test_export_then_import_into_an_empty_service_then_export_gives_the_same_document(api, app):
    imported(api, "portainer", corpus.portainer_catalog(V3), files=corpus.portainer_files())
    first = api.get("/exports", user="alice")
    assert first.status == 200 and first.headers["content-type"].startswith("application/json")
    exported = first.json
    assert exported["format"] == "native" and len(exported["blueprints"]) == 68
    fresh = make_app(app.backend, app.config.get("MONGO_URI"))  # a new database
    try:
        empty = FlaskClient(fresh)
        report = imported(empty, "native", exported, source="backup")
        assert report["counts"]["created"] == 68
        again = empty.get("/exports", user="alice").json
    finally:
        client = state.of(fresh).database.client
        client.drop_database(fresh.config["MONGO_DB"])
        client.close()

    def without_ids(document):
        return [{k: v for k, v in item.items() if k != "id"} for item in document["blueprints"]]

    assert without_ids(again) == without_ids(exported)
    assert {item["id"] for item in again["blueprints"]}.isdisjoint({item["id"] for item in exported["blueprints"]})


def test_exports_apply_the_list_filters_and_only_what_the_caller_may_read(api):
    for user, name in (("alice", "a1"), ("alice", "a2"), ("bob", "b1")):
        body = {"name": name, "blueprintType": "compose", "yml": "services: {w: {image: nginx}}\n"}
        assert api.post("/blueprints", json=body, user=user).status == 201
    assert [b["name"] for b in api.get("/exports", user="alice").json["blueprints"]] == ["a2", "a1"]
    assert [b["name"] for b in api.get("/exports?name=a1", user="alice").json["blueprints"]] == ["a1"]
    assert api.get("/exports?nope=1", user="alice").status == 422


def test_an_export_to_openshift_is_named_as_kubernetes_names_an_object_whatever_the_blueprints_name(api):
    """A name cut at 63 characters once ended with the `-` of its space."""
    stream = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: settings}\n"
    named = "A" * 62 + " web"
    created = api.post("/blueprints", json={"name": named, "blueprintType": "kubernetes", "yml": stream}, user="alice")
    exported = api.get(f"/blueprints/{created.json['id']}/export?format=openshift", user="alice").json
    assert exported["metadata"]["name"] == "a" * 62  # a DNS label, as OpenShift names a Template


def test_an_export_to_openshift_of_a_compose_blueprint_is_a_409(api):
    created = api.post(
        "/blueprints",
        json={"name": "c", "blueprintType": "compose", "yml": "services: {w: {image: nginx}}\n"},
        user="alice",
    ).json
    assert api.get(f"/blueprints/{created['id']}/export?format=openshift", user="alice").status == 409
    assert api.get(f"/blueprints/{created['id']}/export?format=helm", user="alice").status == 422


@pytest.mark.parametrize(
    ("pattern", "expected"),
    [
        ("user[A-Z0-9]{3}", r"user[A-Z0-9]{3}"),
        ("[\\w]{50}", r"[A-Za-z0-9_]{50}"),
        ("[a-z0-9]{127}", r"[a-z0-9]{127}"),
        ("\\d{4}", r"[0-9]{4}"),
        ("[\\a\\d]{5}", r"[A-Za-z0-9]{5}"),
        ("[\\A]{6}", r"[^A-Za-z0-9\s]{6}"),
    ],
)
def test_x_generate_reads_openshift_generator_patterns(pattern, expected):
    from app.definitions.parameters import generate

    values = {generate(pattern) for _ in range(20)}
    assert all(re.fullmatch(expected, value) for value in values)
    assert len(values) > 1  # random, not a constant


def test_an_openshift_template_may_come_as_its_yaml_text(api):
    template = corpus.openshift_templates()["httpd-example.json"]
    text = yaml.safe_dump(template, sort_keys=False)
    result = imported(api, "openshift", text)["results"][0]
    assert result["key"] == "httpd-example" and result["outcome"] == "created", result
    broken = {"format": "openshift", "source": "s", "document": "a: [\n"}
    assert api.post("/imports", json=broken, user="alice").status == 422


def test_a_template_a_concurrent_import_made_first_is_refused_not_duplicated(api, monkeypatch):
    from app.blueprints.storage import store

    catalog = {"version": "2", "templates": [{"type": 1, "title": "x", "image": "nginx"}]}
    imported(api, "portainer", catalog)
    monkeypatch.setattr(
        store, "imported_from", lambda source, user: {}
    )  # as if the other import wrote after the lookup
    result = imported(api, "portainer", catalog)["results"][0]
    assert result["outcome"] == "refused" and "concurrent import" in result["problems"][0]
    assert len(api.get("/blueprints", user="alice").json["items"]) == 1


@pytest.mark.parametrize("app", ["mongomock"], indirect=True)
def test_the_community_catalog_has_an_outcome_for_every_template_and_refuses_only_its_errors(api):
    catalog = corpus.portainer_catalog("lissy93-templates.json")
    report = imported(api, "portainer", catalog, dry_run=True, files=corpus.portainer_files())
    assert len(report["results"]) == len(catalog["templates"]) == 524
    refused = {result["title"]: result["problems"] for result in report["results"] if result["outcome"] == "refused"}
    # the catalog's own errors: an env named twice, an env name with a space, a bind written " /etc/timezone"
    assert sorted(problems[0].split(":")[0] for problems in refused.values()) == ["env.1.name", "env.4.name", "yml"]
    skipped = [result for result in report["results"] if result["outcome"] == "skipped"]
    reasons = {"is not among the files given", "an Edge stack"}  # a stack in another repository, or type 4
    assert skipped and all(any(reason in result["notes"][-1] for reason in reasons) for result in skipped)
    assert report["counts"]["created"] == 524 - len(refused) - len(skipped)


def test_an_import_s_body_may_be_larger_and_deeper_than_others_within_its_own_limits(api):
    """`POST /imports` declares its own limits (16 MiB, 64 levels) where every other body has 1 MiB
    and 16: past the others' it reaches the schema, past its own it is refused."""

    def nested(depth):
        return {"a": nested(depth - 1)} if depth else 1

    within = {"format": "native", "source": "s", "document": {"pad": "x" * (2 * 2**20), "deep": nested(40)}}
    r = api.post("/imports", json=within, user="alice")
    assert r.status == 422 and list(r.json["errors"]) == ["document"], r.json
    deeper = {"format": "native", "source": "s", "document": {"deep": nested(70)}}
    problem = assert_problem(api.post("/imports", json=deeper, user="alice"), 400)
    assert "nested deeper than 64" in problem["detail"]


def test_an_openshift_import_whose_aliases_expand_past_a_definition_is_refused_before_anything_is_built(api):
    body = {"format": "openshift", "source": "s", "document": probes.alias_tree_templates(count=6)}
    problem = assert_problem(api.post("/imports", json=body, user="alice"), 422)
    assert "Aliases expand" in problem["errors"]["document"][0]


def test_an_openshift_template_whose_objects_outweigh_a_definition_is_refused_before_it_is_written_out(api):
    data = {f"k{index}": "x" * 10_000 for index in range(30)}  # JSON: no aliases, 300 KB of objects
    template = {
        "kind": "Template",
        "metadata": {"name": "big"},
        "objects": [{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"}, "data": data}],
    }
    result = imported(api, "openshift", template)["results"][0]
    assert result["outcome"] == "refused"
    assert result["problems"] == ["objects: more than a definition holds (256 KiB), its aliases expanded."]


def test_a_stored_definition_whose_aliases_expand_past_the_limits_is_refused_on_write_and_never_exported(app):
    api = FlaskClient(app)
    body = {"name": "big", "blueprintType": "kubernetes", "yml": probes.scalar_alias_definition()}
    assert "Aliases expand" in str(assert_problem(api.post("/blueprints", json=body, user="alice"), 422)["errors"])
    body["yml"] = "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec: {containers: [{name: a, image: busybox}]}\n"
    created = api.post("/blueprints", json=body, user="alice").json
    # as a definition stored before the stream-wide bound existed
    with app.app_context():
        state.of(app).database["blueprints"].update_one(
            {"_id": ObjectId(created["id"])}, {"$set": {"yml": probes.scalar_alias_definition()}}
        )
    problem = assert_problem(api.get(f"/blueprints/{created['id']}/export?format=openshift", user="alice"), 409)
    assert "Aliases expand" in problem["detail"]


def test_the_service_serves_its_formats_types_and_bounds_for_its_clients(api):
    """`GET /formats` is the one list clients read (the page and bpctl keep none): every import
    format in the registry's order with what it makes and its folder's layout, each blueprint type
    with every alias a definition is checked under, and the bounds the service holds."""
    from app.definitions import format_of
    from app.imports.formats import FORMATS, MAX_IMPORT_BYTES

    served = api.get("/formats", user="victor")
    assert served.status == 200
    imports = {fmt["format"]: fmt for fmt in served.json["imports"]}
    assert list(imports) == list(FORMATS)
    assert imports["dokploy"] == {
        "format": "dokploy",
        "title": "Dokploy templates",
        "makes": "blueprints",
        "folder": "blueprints",
        "marker": "docker-compose.yml",
        "files": ["docker-compose.yml", "template.toml", "meta.json"],
    }
    assert [name for name, fmt in imports.items() if fmt["makes"] == "profiles"] == ["kubernetes-quota"]
    assert {name: fmt["folder"] for name, fmt in imports.items() if fmt["folder"]} == {
        "dokploy": "blueprints",
        "coolify": "templates/compose",
        "caprover": "public/v4/apps",
    }
    types = served.json["blueprintTypes"]
    assert [t["type"] for t in types] == ["compose", "kubernetes"]
    for declared in types:
        for alias in declared["aliases"]:  # each alias is checked as its type is
            assert format_of(alias) is format_of(declared["type"]) is not None
            assert format_of(alias.upper()) is format_of(declared["type"])
    assert served.json["bounds"]["importBytes"] == MAX_IMPORT_BYTES == 16 * 1024 * 1024
    body = b'{"name": "' + b"x" * served.json["bounds"]["bodyBytes"] + b'"}'
    too_large = api.post("/profiles", data=body, headers={"Content-Type": "application/json"}, user="alice")
    assert too_large.status == 413  # the body bound served is the one held
    assert api.get("/formats").status == 401
