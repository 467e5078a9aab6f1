"""Secrets stay in /yml: a secret parameter stands only where its value reaches the process (a
422 on the blueprint's write naming any other place, through an alias too), problems never quote
any part of one, a value generated at admission stays a secret whatever the schema later says,
and Kubernetes reads every literal `$` of a converted value as written."""

import json

import pytest
import yaml

from app.definitions import render as rendering
from app.errors import Invalid
from support.http import assert_problem, create

SECRET = {"type": "string", "writeOnly": True, "x-generate": "[A-Za-z0-9]{24}"}
PARAMETERS = {"type": "object", "properties": {"DB_PASSWORD": SECRET}}


def write(api, yml, kind="compose", parameters=PARAMETERS):
    return api.post(
        "/blueprints", json={"name": "s", "blueprintType": kind, "yml": yml, "parameters": parameters}, user="alice"
    )


@pytest.mark.parametrize(
    ("yml", "place"),
    [
        ("services:\n  web:\n    image: x\n    working_dir: /w/${DB_PASSWORD}\n", "services.web.working_dir"),
        ("services:\n  web:\n    image: x\n    hostname: ${DB_PASSWORD}\n", "services.web.hostname"),
        ('services:\n  web:\n    image: x\n    labels: ["a=${DB_PASSWORD}"]\n', "services.web.labels.0"),
        ('x-a: &a "${DB_PASSWORD}"\nservices:\n  web:\n    image: *a\n', "services.web.image"),
    ],
)
def test_a_secret_standing_where_others_read_it_is_refused_on_write(api, yml, place):
    refused = assert_problem(write(api, yml), 422)["errors"]["yml"]
    assert refused == [
        f"{place}: holds ${{DB_PASSWORD}}, a secret parameter; secrets may stand only in environment values, "
        "commands, entrypoints, health check tests and config or secret content."
    ]


def test_a_secret_in_a_kubernetes_name_is_refused_where_its_environment_is_not(api):
    pod = (
        'apiVersion: v1\nkind: Pod\nmetadata: {name: "db-${DB_PASSWORD}"}\nspec:\n  containers:\n'
        '  - name: a\n    image: x\n    env: [{name: P, value: "${DB_PASSWORD}"}]\n    args: ["${DB_PASSWORD}"]\n'
    )
    refused = assert_problem(write(api, pod, "kubernetes"), 422)["errors"]["yml"]
    assert [one.partition(": holds")[0] for one in refused] == ["yml.0: metadata.name"]
    allowed = pod.replace('"db-${DB_PASSWORD}"', "db")
    assert write(api, allowed, "kubernetes").status == 201
    compose = (
        "services:\n  web:\n    image: x\n    environment:\n      P: ${DB_PASSWORD}\n"
        "    command: [sh, -c, 'run ${DB_PASSWORD}']\n    healthcheck:\n      test: [CMD, check, '${DB_PASSWORD}']\n"
        "configs:\n  c:\n    content: 'password=${DB_PASSWORD}'\n"
    )
    assert write(api, compose).status == 201


def test_no_part_of_a_secret_reaches_a_problem():
    """A blueprint stored before the rule: the port its secret stands in is refused, and Compose's
    message would quote the first 40 characters of it."""
    secret = "Sup3rS3cretPassw0rd-and-then-some-more-characters"
    version = {
        "yml": "services:\n  web:\n    image: x\n    ports: ['${DB_PASSWORD}']\n",
        "blueprintType": "compose",
        "parameters": PARAMETERS,
    }
    with pytest.raises(Invalid) as refused:
        rendering.render(version, {"DB_PASSWORD": secret})
    said = json.dumps(refused.value.errors)
    assert "services.web.ports" in said and not any(secret[at : at + 5] in said for at in range(len(secret) - 4))
    with pytest.raises(Invalid) as short:
        rendering.render(version, {"DB_PASSWORD": "no"})
    assert "'no'" not in json.dumps(short.value.errors)
    plain = {**version, "parameters": {"type": "object", "properties": {"DB_PASSWORD": {"type": "string"}}}}
    with pytest.raises(Invalid) as other:
        rendering.render(plain, {"DB_PASSWORD": "no"})
    assert "no" in json.dumps(other.value.errors)  # only a secret's absence changes what is said


def test_a_generated_value_stays_a_secret_whatever_the_schema_says_later(api):
    web = "services:\n  web:\n    image: x\n    environment:\n      DB_PASSWORD: ${DB_PASSWORD}\n"
    made = create(api, "blueprints", name="s", blueprintType="compose", yml=web, parameters=PARAMETERS).json
    team = create(api, "profiles", name="t").json
    body = {"name": "shop", "blueprint": made["id"], "profile": team["id"], "target": "kubernetes"}
    shop = api.post("/instances", json=body, user="alice").json
    assert shop["values"] == {"DB_PASSWORD": None}
    plain = {"type": "object", "properties": {"DB_PASSWORD": {"type": "string", "default": "public"}}}
    assert api.patch(f"/blueprints/{made['id']}", json={"parameters": plain}, user="alice").status == 200
    upgraded = api.post(f"/instances/{shop['id']}/upgrade", json={}, user="alice")
    assert upgraded.status == 200 and upgraded.json["values"] == {"DB_PASSWORD": None}
    text = api.get(f"/instances/{shop['id']}/yml", user="alice").body.decode()
    deployment = [one for one in yaml.safe_load_all(text) if one and one["kind"] == "Deployment"][0]
    env = deployment["spec"]["template"]["spec"]["containers"][0]["env"]
    assert "valueFrom" in env[0] and "value" not in env[0]  # still read from the Secret


def test_every_literal_dollar_is_doubled_for_kubernetes(api):
    web = (
        "services:\n  web:\n    image: x\n    command: [sh, -c, 'echo $$$$(HOME) $$HOME']\n"
        "    environment:\n      A: 'a$$b $$(X)'\n"
    )
    made = create(api, "blueprints", name="d", blueprintType="compose", yml=web).json
    answer = api.post(f"/blueprints/{made['id']}/render", json={"target": "kubernetes"}, user="alice").json
    container = [one for one in yaml.safe_load_all(answer["yml"]) if one["kind"] == "Deployment"][0]
    container = container["spec"]["template"]["spec"]["containers"][0]
    # the container sees `echo $$(HOME) $HOME` and `a$b $(X)`, as Docker Compose would give them
    assert container["args"] == ["sh", "-c", "echo $$$$(HOME) $$HOME"]
    assert container["env"] == [{"name": "A", "value": "a$$b $$(X)"}]


WEB = (
    "services:\n  web:\n    image: nginx:${TAG}\n    mem_limit: 64m\n    cpus: 0.1\n"
    "    environment:\n      - DB_PASSWORD=${DB_PASSWORD}\n      - MODE=plain\n"
)
TAGGED = {"type": "object", "properties": {"DB_PASSWORD": SECRET, "TAG": {"type": "string", "default": "1.27"}}}


@pytest.mark.parametrize("target", ["compose", "kubernetes"])
def test_no_diff_shows_a_secret_value_changed_or_kept(api, target):
    made = write(api, WEB, parameters=TAGGED).json
    profile = create(api, "profiles", name="p", memoryCap="1Gi", cpuCap="1", storageCap="10Gi").json
    body = {
        "name": "web",
        "blueprint": made["id"],
        "profile": profile["id"],
        "values": {"DB_PASSWORD": "cdam856qa14zl"},
    }
    shop = api.post("/instances", json={**body, "target": target}, user="alice").json
    path = f"/instances/{shop['id']}/upgrade"
    for query, values in (("?dryRun=true", {"DB_PASSWORD": "MyOwnPass123"}), ("", {"DB_PASSWORD": "MyOwnPass123"})):
        diff = api.post(path + query, json={"values": values}, user="alice").json["diff"]
        assert "cdam856qa14zl" not in diff and "MyOwnPass123" not in diff and "(secret, changed)" in diff, diff
        if target == "compose":
            assert (
                "-      - DB_PASSWORD: (secret, changed)\n" in diff
                and "+      - DB_PASSWORD: (secret, changed)\n" in diff
            )
    kept = api.post(path, json={"values": {"TAG": "1.28"}}, user="alice").json["diff"]  # the secret kept, nginx moved
    assert "MyOwnPass123" not in kept and "image: nginx:1.28\n" in kept
    fleet = api.post("/instances/upgrade?dryRun=true", json={"blueprint": made["id"]}, user="alice").json
    assert all("MyOwnPass123" not in result["diff"] for result in fleet["results"])
    rolled = api.post(f"/instances/{shop['id']}/rollback", json={"release": 1}, user="alice").json["diff"]
    assert "cdam856qa14zl" not in rolled and "MyOwnPass123" not in rolled and "(secret, changed)" in rolled


def test_a_kubernetes_secrets_data_is_hidden_in_a_diff_whatever_names_it():
    from app.definitions import diffs

    secret = "apiVersion: v1\nkind: Secret\nmetadata:\n  name: s\nstringData:\n  key: {}\n  cert: |\n    {}\n"
    before, after = secret.format("old-value", "line-one"), secret.format("new-value", "line-two")
    diff = diffs.unified(before + "---\nkind: ConfigMap\ndata:\n  a: b\n", after, ("a", "b"), [])
    assert "old-value" not in diff and "new-value" not in diff and "line-" not in diff
    assert "-  key: (secret, changed)\n" in diff and "+  key: (secret, changed)\n" in diff
    assert "-  a: b\n" in diff  # a ConfigMap's data is no secret
