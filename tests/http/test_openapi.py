"""The served OpenAPI document: valid OpenAPI 3.1, and it describes what the contract adds to
blueprints (requirements, the fit, the fit filters, dry runs, examples of both formats)."""

from openapi_spec_validator import validate

from support.apps import make_app
from support.http import FlaskClient


def spec_of(api):
    r = api.get("/openapi.json")
    assert r.status == 200
    return r.json


def test_the_document_is_valid_openapi(api):
    validate(spec_of(api))


def test_blueprint_definitions_are_described(api):
    spec = spec_of(api)
    paths, schemas = spec["paths"], spec["components"]["schemas"]
    assert set(schemas["Requirements"]["properties"]) == {
        "memoryBytes",
        "cpuMillis",
        "containers",
        "storageBytes",
        "unbounded",
        "unresolved",
        "headroom",  # on a cluster, a profile's room for the cluster's own pods, counted
    }
    assert "requirements" in schemas["Blueprint"]["properties"]
    fit = paths["/blueprints/{id}/fit"]["get"]
    assert [p["name"] for p in fit["parameters"]] == ["profile", "target"] and "200" in fit["responses"]
    assert set(schemas["FitResources"]["properties"]) == {"memory", "cpu", "containers", "storage"}
    assert {"fitsProfile"} <= {p["name"] for p in paths["/blueprints"]["get"]["parameters"]}
    assert {"fits"} <= {p["name"] for p in paths["/profiles"]["get"]["parameters"]}
    examples = paths["/blueprints"]["post"]["requestBody"]["content"]["application/json"]["examples"]
    assert set(examples) == {"compose", "kubernetes"}


def test_every_write_documents_dry_run(api):
    paths = spec_of(api)["paths"]
    writes = [("/profiles", "post"), ("/blueprints", "post")]
    writes += [
        (f"/{collection}/{{id}}", method) for collection in ("profiles", "blueprints") for method in ("patch", "put")
    ]
    for path, method in writes:
        operation = paths[path][method]
        assert "dryRun" in {p["name"] for p in operation["parameters"]}, (path, method)
    assert "200" in paths["/blueprints"]["post"]["responses"]  # the dry run's answer


def test_templates_are_described(api):
    spec = spec_of(api)
    paths, schemas = spec["paths"], spec["components"]["schemas"]
    assert schemas["Blueprint"]["properties"]["parameters"]["anyOf"][0] == {"$ref": "#/components/schemas/Parameters"}
    declared = schemas["Parameters"]["properties"]["properties"]
    assert declared["additionalProperties"] == {"$ref": "#/components/schemas/Parameter"}
    assert declared["maxProperties"] == 256  # as the contract bounds them
    assert schemas["Parameter"]["properties"]["type"]["enum"] == ["string", "integer", "number", "boolean"]
    assert {"default", "examples", "writeOnly", "x-generate", "pattern"} <= set(schemas["Parameter"]["properties"])
    for path in ("/blueprints/{id}/render", "/blueprints/{id}/revisions/{rev}/render"):
        post = paths[path]["post"]
        body = post["requestBody"]["content"]["application/json"]["schema"]
        assert body == {"$ref": "#/components/schemas/RenderArgs"}
        assert post["responses"]["200"]["headers"]["Cache-Control"]
        assert {"409", "422", "404"} <= set(post["responses"])
    rendered = {"yml", "values", "requirements", "routes", "fit", "cost", "maximized", "notes"}
    assert set(schemas["Render"]["properties"]) == rendered
    assert paths["/blueprints/{id}/yaml"]["get"]["responses"] == paths["/blueprints/{id}/yml"]["get"]["responses"]


def test_a_412_documents_the_current_version(api):
    spec = spec_of(api)
    failed = spec["components"]["responses"]["PreconditionFailed"]
    assert "ETag" in failed["headers"]
    members = spec["components"]["schemas"]["Problem"]["properties"]
    assert {"rev", "updatedBy", "updatedAt"} <= set(members)


def test_the_document_names_the_path_prefix_it_was_served_under_and_the_docs_page_is_protected():
    behind = FlaskClient(make_app("mongomock", TRUSTED_PROXIES=1))
    prefixed = behind.get("/openapi.json", headers={"X-Forwarded-Prefix": "/bp"}).json
    assert prefixed["servers"] == [{"url": "/bp"}]
    assert behind.get("/openapi.json").json["servers"] == [{"url": "/"}]
    untrusted = FlaskClient(make_app("mongomock"))  # no proxy trusted: a forwarded prefix is nobody's word
    assert untrusted.get("/openapi.json", headers={"X-Forwarded-Prefix": "/evil"}).json["servers"] == [{"url": "/"}]
    page = untrusted.get("/docs")
    assert page.status == 200 and b"<script>" not in page.body  # nothing inline: the strict policy holds
    assert "script-src 'self'" in page.headers["content-security-policy"]
    assert page.headers["x-frame-options"] == "DENY"
    assert b'src="docs/' in page.body and b'src="/' not in page.body  # relative: it works under a prefix
