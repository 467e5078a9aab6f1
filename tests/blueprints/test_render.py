"""Blueprint parameters through the API: declared and checked on write (with the place named),
measured at their defaults, kept in history; POST /blueprints/{id}/render and the revision form:
values checked without coercion and never echoed, defaults, generated secrets, writeOnly, fit,
maximize, limits."""

import json
import re

import jwt
import pytest
import yaml

from app.definitions import render as rendering
from app.model import quantities
from support import compose_oracle as oracle
from support.http import assert_problem, create
from support.requirements import need

Mi = 1024**2
TEMPLATE = (
    "services:\n"
    "  web:\n"
    "    image: nginx:${TAG}\n"
    "    deploy:\n"
    "      replicas: ${REPLICAS}  # how many\n"
    "    mem_limit: 256m\n"
    "    environment:\n"
    "      PASSWORD: ${PASSWORD}\n"
    "      API_KEY: ${API_KEY}\n"
)
PARAMETERS = {
    "type": "object",
    "properties": {
        "REPLICAS": {"type": "integer", "default": 2, "minimum": 1, "maximum": 50},
        "TAG": {"type": "string", "default": "1.27", "pattern": "^[0-9.]+$"},
        "PASSWORD": {"type": "string", "writeOnly": True, "x-generate": "[A-Za-z0-9]{24}"},
        "API_KEY": {"type": "string", "writeOnly": True, "examples": ["example-key"], "minLength": 8},
    },
}


@pytest.fixture
def template(api):
    made = create(
        api,
        "blueprints",
        name="t",
        blueprintType="compose",
        yml=TEMPLATE,
        parameters=PARAMETERS,
        entitlementType="PUBLIC",
    )
    assert made.status == 201, made.json
    return made.json


def render(api, blueprint, user="bob", **body):
    return api.post(f"/blueprints/{blueprint['id']}/render", json=body, user=user)


def profile(api, user="bob", **caps):
    return create(api, "profiles", user=user, **caps).json["id"]


def test_parameters_are_kept_and_the_template_is_measured_at_its_defaults(api, template):
    assert template["parameters"] == PARAMETERS
    assert template["requirements"] == need(2 * 256 * Mi, 0, 2, unbounded=["web: cpu"])
    path = f"/blueprints/{template['id']}"
    bigger = {**PARAMETERS, "properties": {**PARAMETERS["properties"], "REPLICAS": {"type": "integer", "default": 5}}}
    changed = api.patch(path, json={"parameters": bigger}, user="alice").json
    assert changed["requirements"]["containers"] == 5
    diff = api.get(f"{path}/diff", user="alice").json
    assert diff["fields"] == {"parameters": {"from": PARAMETERS, "to": bigger}}
    assert api.get(f"{path}/revisions/1", user="alice").json["parameters"] == PARAMETERS
    restored = api.post(f"{path}/revisions/1/restore", user="alice").json
    assert restored["parameters"] == PARAMETERS and restored["requirements"]["containers"] == 2
    dry = api.patch(f"{path}?dryRun=true", json={"parameters": None}, user="alice")  # undeclared, no default
    assert dry.json["requirements"] == need(256 * Mi, 0, 1, unbounded=["web: cpu"], unresolved=["REPLICAS"])
    assert api.put(path, json={"name": "t"}, user="alice").json["parameters"] is None  # PUT resets it


@pytest.mark.parametrize(
    "parameters, place",
    [
        (
            {"type": "object", "properties": {"REPLICAS": {"type": "integer", "default": 0, "minimum": 1}}},
            "parameters.properties.REPLICAS.default",
        ),
        (
            {"type": "object", "properties": {"A": {"type": "string", "default": "x", "items": {}}}},
            "parameters.properties.A.items",
        ),
        ({"type": "object", "properties": {"A": {"type": "object", "default": {}}}}, "parameters.properties.A.type"),
        ({"type": "object", "properties": {"A": {"type": "string"}}}, "parameters.properties.A.default"),
        (
            {"type": "object", "properties": {"A": {"type": "integer", "default": 1, "pattern": "1"}}},
            "parameters.properties.A.pattern",
        ),
        (
            {"type": "object", "properties": {"A": {"type": "string", "default": "a", "pattern": "(?=a)a"}}},
            "parameters.properties.A.pattern",
        ),
        (
            {"type": "object", "properties": {"A": {"type": "string", "x-generate": "[a-z]{300}"}}},
            "parameters.properties.A.x-generate",
        ),
        (
            {
                "type": "object",
                "properties": {"A": {"type": "string", "x-generate": "[a-z]{8}", "pattern": "^[0-9]+$"}},
            },
            "parameters.properties.A.x-generate",
        ),
        (
            {"type": "object", "properties": {"A": {"type": "string", "enum": [1], "default": "a"}}},
            "parameters.properties.A.enum",
        ),
        ({"type": "object", "properties": {"1A": {"type": "string", "default": "a"}}}, "parameters.properties.1A"),
        (
            {"type": "object", "properties": {"A": {"type": "string", "default": "a"}}, "required": ["B"]},
            "parameters.required",
        ),
        ({"type": "array"}, "parameters.type"),
        (  # a JWT signed with a parameter nobody declared, with itself, or with another JWT
            {"type": "object", "properties": {"T": {"type": "string", "x-generate": {"jwt": {"secret": "S"}}}}},
            "parameters.properties.T.x-generate",
        ),
        (
            {"type": "object", "properties": {"T": {"type": "string", "x-generate": {"jwt": {"secret": "T"}}}}},
            "parameters.properties.T.x-generate",
        ),
        (
            {
                "type": "object",
                "properties": {
                    "S": {"type": "string", "x-generate": "[a-z]{40}"},
                    "T": {"type": "string", "x-generate": {"jwt": {"secret": "S"}}},
                    "U": {"type": "string", "x-generate": {"jwt": {"secret": "T"}}},
                },
            },
            "parameters.properties.U.x-generate",
        ),
        (
            {
                "type": "object",
                "properties": {"T": {"type": "string", "x-generate": {"jwt": {"secret": "S", "claims": {"a": [1]}}}}},
            },
            "parameters.properties.T.x-generate.jwt.claims.a.value",
        ),
        (
            {"type": "object", "properties": {"T": {"type": "string", "x-generate": {"other": 1}}}},
            "parameters.properties.T.x-generate",
        ),
        ({"type": "object", "patternProperties": {}}, "parameters.patternProperties"),
        (
            {"type": "object", "properties": {f"P{i}": {"type": "boolean", "default": True} for i in range(257)}},
            "parameters.properties",
        ),
        (
            {
                "type": "object",
                "description": "x" * 1000,
                "properties": {f"P{i}": {"type": "string", "default": "d" * 700} for i in range(100)},
            },
            "parameters",
        ),
    ],
)
def test_a_parameter_schema_outside_the_subset_is_refused_naming_the_place(api, parameters, place):
    r = api.post("/blueprints", json={"yml": "a: 1", "parameters": parameters}, user="alice")
    assert_problem(r, 422)
    assert place in r.json["errors"], r.json["errors"]


def test_the_contracts_example_message(api):
    r = api.post(
        "/blueprints",
        json={
            "parameters": {
                "type": "object",
                "properties": {"REPLICAS": {"type": "integer", "default": 0, "minimum": 1}},
            }
        },
        user="alice",
    )
    assert r.json["errors"] == {"parameters.properties.REPLICAS.default": ["0 is less than the minimum of 1"]}


def test_a_maximum_of_10_to_the_18_is_a_bound_like_any_other(api):
    big = {"type": "object", "properties": {"N": {"type": "integer", "default": 1, "maximum": 10**18}}}
    made = create(api, "blueprints", yml="n: ${N}", parameters=big).json
    assert made["parameters"]["properties"]["N"]["maximum"] == 10**18
    assert render(api, made, user="alice", values={"N": 10**18}).json["yml"] == f"n: {10**18}"
    assert_problem(render(api, made, user="alice", values={"N": 10**18 + 1}), 422)


def test_a_render_fills_in_values_and_keeps_the_rest(api, template):
    r = render(api, template, values={"REPLICAS": 3, "TAG": "1.25", "API_KEY": "s3cr3t-key"})
    assert r.status == 200 and r.headers["cache-control"] == "no-store"
    body = r.json
    assert body["values"] == {"REPLICAS": 3, "TAG": "1.25", "PASSWORD": None, "API_KEY": None}  # writeOnly: null
    password = re.search(r"PASSWORD: (\S+)", body["yml"])[1]
    assert re.fullmatch(r"[A-Za-z0-9]{24}", password)
    assert body["yml"] == TEMPLATE.replace("${TAG}", "1.25").replace("${REPLICAS}", "3").replace(
        "${PASSWORD}", password
    ).replace("${API_KEY}", "s3cr3t-key")
    assert body["requirements"] == need(3 * 256 * Mi, 0, 3, unbounded=["web: cpu"])
    assert body["fit"] is None and "maximized" not in body
    again = render(api, template, values={"API_KEY": "s3cr3t-key"}).json
    assert re.search(r"PASSWORD: (\S+)", again["yml"])[1] != password  # generated anew
    assert again["values"]["TAG"] == "1.27" and again["values"]["REPLICAS"] == 2  # defaults


def test_values_are_checked_without_coercion_and_never_echoed(api, template):
    r = render(api, template, values={"REPLICAS": "3", "TAG": "not-a-version", "API_KEY": "short", "NOPE": 1})
    assert_problem(r, 422)
    assert r.json["errors"] == {
        "values.REPLICAS": ["must be of type integer."],
        "values.TAG": ["must match the pattern ^[0-9.]+$."],
        "values.API_KEY": ["must be at least 8 characters long."],
        "values.NOPE": ["Not a parameter of this blueprint."],
    }
    assert b"short" not in r.body and b"not-a-version" not in r.body and r.headers["cache-control"] == "no-store"
    for wrong in (51, 0, True, 2.5, None):
        assert_problem(render(api, template, values={"REPLICAS": wrong, "API_KEY": "long-enough"}), 422)
    beyond_a_double = b'{"values": {"REPLICAS": 1e400, "API_KEY": "long-enough"}}'
    r = api.post(
        f"/blueprints/{template['id']}/render",
        data=beyond_a_double,
        user="bob",
        headers={"Content-Type": "application/json"},
    )
    assert r.json["errors"] == {"values.REPLICAS": ["must be of type integer."]}
    assert render(api, template, values={"REPLICAS": 3.0, "API_KEY": "long-enough"}).json["values"]["REPLICAS"] == 3


def test_a_required_parameter_and_one_without_a_default_need_a_value(api, template):
    r = render(api, template)  # API_KEY has only an example: a render needs a value
    assert r.json["errors"] == {"values.API_KEY": ["This parameter has no default: give a value."]}
    required = {**PARAMETERS, "required": ["TAG"]}
    made = create(api, "blueprints", blueprintType="compose", yml=TEMPLATE, parameters=required).json
    r = render(api, made, user="alice", values={"API_KEY": "long-enough"})
    assert r.json["errors"] == {"values.TAG": ["Required: this template needs a value for it."]}


def test_a_backtracking_pattern_answers_at_once(api):
    evil = {"type": "object", "properties": {"A": {"type": "string", "default": "a", "pattern": "^(a+)+$"}}}
    made = create(api, "blueprints", yml="a: ${A}", parameters=evil).json
    r = render(api, made, user="alice", values={"A": "a" * 100_000 + "!"})  # a backtracking engine takes ages
    assert r.json["errors"] == {"values.A": ["must match the pattern ^(a+)+$."]}


def test_an_empty_required_value_is_named(api):
    made = create(
        api,
        "blueprints",
        yml="image: ${TAG:?give a tag}",
        parameters={"type": "object", "properties": {"TAG": {"type": "string", "default": "x"}}},
    ).json
    assert render(api, made, user="alice", values={"TAG": ""}).json["errors"] == {"values.TAG": ["give a tag"]}


def test_the_fit_and_the_most_that_fits(api, template):
    key = {"API_KEY": "long-enough"}
    roomy = profile(api, memoryCap="1Gi")  # 4 containers of 256 MiB
    r = render(api, template, values=key, profile=roomy, maximize="REPLICAS").json
    assert r["fit"]["fits"] is True and r["fit"]["resources"]["memory"]["required"] == 2 * 256 * Mi
    assert r["maximized"] == {"REPLICAS": 4}  # in the middle of 1..50
    assert render(api, template, values=key, profile=profile(api), maximize="REPLICAS").json["maximized"] == {
        "REPLICAS": 50
    }  # the top: nothing is capped
    tight = profile(api, memoryCap="300Mi")
    assert render(api, template, values=key, profile=tight, maximize="REPLICAS").json["maximized"] == {"REPLICAS": 1}
    none = profile(api, memoryCap="100Mi")
    r = render(api, template, values=key, profile=none, maximize="REPLICAS").json
    assert r["maximized"] == {"REPLICAS": None} and r["fit"]["fits"] is False
    assert_problem(render(api, template, values=key, maximize="REPLICAS"), 422)  # needs a profile
    assert render(api, template, values=key, profile=roomy, maximize="TAG").json["errors"] == {
        "maximize": ["Must name an integer parameter of this blueprint."]
    }
    assert_problem(render(api, template, values=key, profile=profile(api, user="carol")), 404)  # not bob's


def test_the_most_that_fits_without_a_maximum_is_searched_up_to_a_million(api):
    made = create(
        api,
        "blueprints",
        blueprintType="compose",
        parameters={"type": "object", "properties": {"N": {"type": "integer", "default": 1, "minimum": 0}}},
        yml="services:\n  w:\n    image: x\n    scale: ${N}\n    mem_limit: 1m\n    cpus: 0.001\n",
    ).json
    cap = profile(api, user="alice", memoryCap="777777Mi")
    assert render(api, made, user="alice", profile=cap, maximize="N").json["maximized"] == {"N": 777_777}
    assert render(api, made, user="alice", profile=profile(api, user="alice"), maximize="N").json["maximized"] == {
        "N": 1_000_000
    }


def test_who_may_render_and_the_revision_form(api, template):
    assert render(api, template, user="victor", values={"API_KEY": "long-enough"}).status == 200  # a viewer
    private = create(
        api,
        "blueprints",
        yml="a: ${A}",
        parameters={"type": "object", "properties": {"A": {"type": "string", "default": "x"}}},
    ).json
    assert_problem(render(api, private, user="bob"), 404)
    path = f"/blueprints/{private['id']}"
    api.patch(path, json={"yml": "b: ${A}"}, user="alice")
    old = api.post(f"{path}/revisions/1/render", json={"values": {"A": "v"}}, user="alice")
    assert old.status == 200 and old.json["yml"] == "a: v" and old.headers["cache-control"] == "no-store"
    assert render(api, private, user="alice").json["yml"] == "b: x"
    assert_problem(api.post(f"{path}/revisions/9/render", json={}, user="alice"), 404)
    empty = create(api, "blueprints").json
    assert_problem(render(api, empty, user="alice"), 409)


def test_a_rendering_its_format_refuses_is_a_422_under_yml(api, template):
    made = create(
        api,
        "blueprints",
        blueprintType="compose",
        parameters={"type": "object", "properties": {"MEM": {"type": "string", "default": "1g"}}},
        yml="services:\n  w:\n    image: x\n    mem_limit: ${MEM}\n",
    ).json
    r = render(api, made, user="alice", values={"MEM": "lots"})
    assert_problem(r, 422)
    assert r.json["errors"]["yml"] == [
        "services.w.mem_limit: the size is not a byte quantity (such as 512m or 1.5g): '<MEM>'."
    ]  # the value is not echoed


def test_a_rendered_definition_over_1_mib_is_refused(api):
    made = create(
        api,
        "blueprints",
        yml="".join(f"v{i}: ${{BIG}}\n" for i in range(30)),
        parameters={"type": "object", "properties": {"BIG": {"type": "string", "default": "x"}}},
    ).json
    assert_problem(render(api, made, user="alice", values={"BIG": "x" * 40_000}), 422)
    assert render(api, made, user="alice", values={"BIG": "x" * 30_000}).status == 200


def test_the_search_for_the_most_that_fits_stops_at_render_seconds(app, api, template):
    app.config["RENDER_SECONDS"] = 0
    r = render(api, template, values={"API_KEY": "long-enough"}, profile=profile(api), maximize="REPLICAS")
    assert r.json["errors"] == {
        "maximize": ["The search took too long; give REPLICAS a narrower range (minimum, maximum)."]
    }


@pytest.mark.parametrize(
    "schema, expected",
    [
        ({"type": "integer"}, range(0, 1_000_001)),  # from 0 to a million when no bound is set
        ({"type": "integer", "minimum": -2.5, "maximum": 7.5}, range(-2, 8)),
        ({"type": "integer", "exclusiveMinimum": -2.5, "exclusiveMaximum": 7}, range(-2, 7)),
        ({"type": "integer", "minimum": 1, "maximum": 20, "multipleOf": 3}, range(3, 19, 3)),
        ({"type": "integer", "enum": [8, 2, 4.0]}, [2, 4, 8]),
        ({"type": "integer", "const": 5}, [5]),
        ({"type": "integer", "minimum": 9, "maximum": 3}, range(0)),
        ({"type": "integer", "minimum": -(10**19), "maximum": 10**19}, range(10**19 - 2**61 + 1, 10**19 + 1)),
    ],
)
def test_the_values_the_most_that_fits_searches(schema, expected):
    from app.definitions.render import RENDERS, _candidates

    found = _candidates(schema)
    assert list(found[:5]) == list(expected[:5]) and len(found) == len(expected) and found[-1:] == expected[-1:]
    assert len(found) <= 2 ** (RENDERS - 3)  # the bisection's steps, with the three other renders, stay within 64


# A profile's container defaults written into the render (docs/api.md, "Profiles as quotas")

DEFAULTS = {"containerDefaults": {"memory": "256Mi", "cpu": "0.25"}}
UNDECLARED = """# the shop
services:
  web:
    image: nginx   # the front
    deploy:
      replicas: ${REPLICAS}
  db: {image: postgres, mem_limit: 1g}
  cache:
    image: redis
    deploy:
      resources:
        limits:
          cpus: '0.5'
"""


def test_a_render_with_a_profile_writes_the_defaults_it_counted_and_nothing_else(api):
    blueprint = create(
        api,
        "blueprints",
        blueprintType="compose",
        yml=UNDECLARED,
        user="bob",
        parameters={"type": "object", "properties": {"REPLICAS": {"type": "integer", "default": 2}}},
    ).json
    r = render(api, blueprint, values={"REPLICAS": 3}, profile=profile(api, memoryCap="2Gi", **DEFAULTS))
    assert r.status == 200, r.json
    assert (
        r.json["yml"]
        == """# the shop
services:
  web:
    image: nginx   # the front
    deploy:
      resources: {limits: {memory: 256m, cpus: 0.25}}
      replicas: 3
  db: {cpus: 0.25, image: postgres, mem_limit: 1g}
  cache:
    image: redis
    deploy:
      resources:
        limits:
          memory: 256m
          cpus: '0.5'
"""
    )
    memory = r.json["fit"]["resources"]["memory"]
    assert memory["defaulted"] == ["cache", "web"] and memory["verdict"] == "fits"
    assert memory["required"] == 3 * 256 * Mi + 1024 * Mi + 256 * Mi == r.json["requirements"]["memoryBytes"]
    assert r.json["fit"]["resources"]["cpu"]["required"] == r.json["requirements"]["cpuMillis"] == 3 * 250 + 250 + 500
    assert r.json["requirements"]["unbounded"] == []
    accepted, project = oracle.config(r.json["yml"])  # Docker Compose counts what the fit counted
    assert accepted and oracle.requirements(project, int)["memoryBytes"] == memory["required"], project
    plain = render(api, blueprint, values={"REPLICAS": 3}, profile=profile(api, memoryCap="2Gi"))
    assert plain.json["yml"] == UNDECLARED.replace("${REPLICAS}", "3")  # no defaults, nothing written
    assert plain.json["fit"]["resources"]["cpu"]["verdict"] == "uncapped"


def test_kubernetes_defaults_go_into_the_containers_resources_limits(api):
    text = (
        "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers:\n"
        "  - name: a  # first\n    image: x\n    resources:\n      requests: {cpu: 100m}\n"
        "  - {name: b, image: busybox}\n"
    )
    blueprint = create(api, "blueprints", blueprintType="kubernetes", yml=text, user="bob").json
    r = render(api, blueprint, profile=profile(api, **DEFAULTS))
    assert r.status == 200, r.json
    assert r.json["yml"] == text.replace("      requests:", "      limits: {memory: 256Mi}\n      requests:").replace(
        "{name: b", "{resources: {limits: {memory: 256Mi, cpu: 250m}}, name: b"
    )
    assert r.json["fit"]["resources"]["cpu"]["defaulted"] == ["Pod/p/b"]  # a's request is what it declares
    assert r.json["requirements"]["cpuMillis"] == 350 and r.json["requirements"]["memoryBytes"] == 512 * Mi


def test_an_amount_over_the_maximum_is_named_in_the_render_and_maximize_stops_below_it(api, template):
    most = profile(api, containerMax={"memory": "128Mi"})
    r = render(api, template, values={"API_KEY": "long-enough"}, profile=most, maximize="REPLICAS")
    assert r.json["fit"]["resources"]["memory"]["overMax"] == ["web: 256Mi > 128Mi"]
    assert r.json["fit"]["fits"] is False and r.json["maximized"] == {"REPLICAS": None}


EDGES = """x-base: &base
  image: nginx
  deploy:
    resources:
      limits: {cpus: '1'}
services:
  a:
    <<: *base
  c:
    image: y
    deploy:
  d:
    extends: c
    pids_limit: 10
  e:
    image: z
    deploy: ~
  f:
    image: w
    deploy: {}
"""
EDGES_WRITTEN = """x-base: &base
  image: nginx
  deploy:
    resources:
      limits: {memory: 256m, cpus: '1'}
services:
  a:
    <<: *base
  c:
    mem_limit: 256m
    cpus: 0.25
    image: y
    deploy:
  d:
    mem_limit: 256m
    cpus: 0.25
    extends: c
    pids_limit: 10
  e:
    image: z
    deploy: {resources: {limits: {memory: 256m, cpus: 0.25}}}
  f:
    image: w
    deploy: {resources: {limits: {memory: 256m, cpus: 0.25}}}
"""


def test_defaults_go_where_compose_reads_them_through_anchors_extends_and_empty_mappings():
    """A merge key's amount goes into the anchored mapping; a service that extends one writing
    `pids_limit` (a short-form twin) and its base take the short form, or Compose would refuse
    the two forms mixed; an empty or null `deploy` takes the levels it lacks."""
    limits = quantities.limits({"containerDefaults": {"memory": "256Mi", "cpu": "0.25"}})
    answer = rendering.render({"yml": EDGES, "blueprintType": "compose"}, {}, limits)
    assert answer["yml"] == EDGES_WRITTEN
    assert answer["requirements"]["memoryBytes"] == answer["fit"]["resources"]["memory"]["required"] == 5 * 256 * Mi
    assert answer["requirements"]["cpuMillis"] == answer["fit"]["resources"]["cpu"]["required"] == 1000 + 4 * 250
    accepted, project = oracle.config(answer["yml"])
    assert accepted, project
    assert oracle.requirements(project, int)["memoryBytes"] == 5 * 256 * Mi
    crlf = "services:\r\n  web:\r\n    image: nginx\r\n"
    written = rendering.render({"yml": crlf, "blueprintType": "compose"}, {}, limits)["yml"]
    limited = "deploy: {resources: {limits: {memory: 256m, cpus: 0.25}}}"
    assert written == crlf.replace("    image", f"    {limited}\r\n    image")


JWT_TEMPLATE = {
    "yml": (
        "services:\n  api:\n    image: supabase/gotrue\n    environment:\n"
        "      JWT_SECRET: ${SECRET}\n      ANON_KEY: ${ANON}\n"
    ),
    "parameters": {
        "type": "object",
        "properties": {
            "SECRET": {"type": "string", "writeOnly": True, "x-generate": "[A-Za-z0-9]{40}"},
            "ANON": {
                "type": "string",
                "x-generate": {
                    "jwt": {"secret": "SECRET", "claims": {"role": "anon", "iss": "supabase"}, "expiresIn": 3600}
                },
            },
        },
    },
}


def test_a_jwt_parameter_is_signed_with_the_value_of_the_one_it_names(api):
    made = api.post("/blueprints", json={"name": "gotrue", "blueprintType": "compose", **JWT_TEMPLATE}, user="alice")
    assert made.status == 201, made.json
    for values in ({}, {"SECRET": "a given secret of thirty-two bytes!"}):
        render = api.post(f"/blueprints/{made.json['id']}/render", json={"values": values}, user="alice").json
        assert render["values"] == {"SECRET": None, "ANON": None}  # both secrets: only in the yml
        environment = yaml.safe_load(render["yml"])["services"]["api"]["environment"]
        assert values.get("SECRET", environment["JWT_SECRET"]) == environment["JWT_SECRET"]
        claims = jwt.decode(environment["ANON_KEY"], environment["JWT_SECRET"], algorithms=["HS256"])
        assert claims["role"] == "anon" and claims["iss"] == "supabase" and claims["exp"] - claims["iat"] == 3600


def test_a_jwt_whose_secret_is_too_short_to_sign_with_is_a_422_naming_it(api):
    made = api.post("/blueprints", json={"name": "gotrue", "blueprintType": "compose", **JWT_TEMPLATE}, user="alice")
    render = api.post(f"/blueprints/{made.json['id']}/render", json={"values": {"SECRET": "short"}}, user="alice")
    assert "shorter than 32 bytes" in assert_problem(render, 422)["errors"]["values.ANON"][0]
    assert "short" not in json.dumps(render.json).replace("shorter", "")  # the value itself is never said


def test_a_compose_blueprint_renders_for_kubernetes_with_its_options_checked(api, template):
    team = profile(api, memoryCap="4Gi", cpuCap="4", containerDefaults={"cpu": "100m"})
    values = {"REPLICAS": 3, "API_KEY": "a-key-of-ours"}
    r = render(api, template, target="kubernetes", namespace="shop", profile=team, values=values)
    assert r.status == 200, r.json
    objects = [one for one in yaml.safe_load_all(r.json["yml"]) if one]
    assert [one["kind"] for one in objects] == ["Secret", "Service", "Deployment", "NetworkPolicy"]
    assert objects[2]["spec"]["replicas"] == 3 and {one["metadata"]["namespace"] for one in objects} == {"shop"}
    assert r.json["requirements"]["memoryBytes"] == 3 * 256 * Mi and r.json["requirements"]["cpuMillis"] == 300
    assert r.json["fit"]["resources"]["cpu"]["defaulted"] == ["web"]  # the Compose render's fit, as counted
    assert r.json["notes"] == [] and r.headers["cache-control"] == "no-store"
    posted = create(api, "blueprints", name="as-rendered", blueprintType="kubernetes", yml=r.json["yml"], user="bob")
    assert posted.status == 201 and posted.json["requirements"] == r.json["requirements"]  # as Kubernetes reads it
    kept = api.post(
        f"/blueprints/{template['id']}/revisions/{template['rev']}/render",
        json={"values": values, "target": "kubernetes"},
        user="bob",
    )
    assert kept.status == 200 and "kind: Deployment" in kept.json["yml"]
    for body, field in (
        ({"target": "swarm"}, "target"),
        ({"namespace": "shop"}, "namespace"),  # without the target
        ({"target": "kubernetes", "namespace": "Shop!"}, "namespace"),
        ({"target": "kubernetes", "volumeSize": "lots"}, "volumeSize"),
        ({"target": "kubernetes", "volumeSize": "0"}, "volumeSize"),
        ({"target": "kubernetes", "volumeSizes": {"data": "1Gi"}}, "volumeSizes"),  # the file has no such volume
    ):
        assert field in assert_problem(render(api, template, values=values, **body), 422)["errors"], body
    pod = "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers:\n  - {name: a, image: x}\n"
    manifest = create(api, "blueprints", name="k", blueprintType="kubernetes", yml=pod).json
    assert "target" in assert_problem(render(api, manifest, user="alice", target="compose"), 422)["errors"]
    assert render(api, manifest, user="alice", target="kubernetes").status == 200  # its own format
