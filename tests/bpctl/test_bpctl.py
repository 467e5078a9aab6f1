"""bpctl, the command-line client, against the service on a real socket: each command's happy path,
its usage error (exit 2) and a refusal (exit 3); "does not fit" (1) and an unreachable or failing
service (4); credentials that never show; and real pipes into Docker Compose and PyYAML."""

import http.server
import json
import os
import re
import shutil
import stat
import subprocess
import threading
import time

import pytest
import yaml

from app.access.users import store as users
from bpctl import fetch
from support import compose_oracle, corpus, tours
from support.apps import serving
from support.bpctl import PROGRAM, Bpctl
from support.http import PASSWORD, SocketClient
from support.on_kubernetes import taken_by_kubernetes

ALICE = {"BPCTL_USERNAME": "alice", "BPCTL_PASSWORD": PASSWORD}
BOB = {"BPCTL_USERNAME": "bob", "BPCTL_PASSWORD": PASSWORD}
VICTOR = {"BPCTL_USERNAME": "victor", "BPCTL_PASSWORD": PASSWORD}
ADMIN = {"BPCTL_USERNAME": "admin", "BPCTL_PASSWORD": PASSWORD}
WEB = """services:
  web:
    image: nginx:${TAG}
    deploy:
      replicas: ${REPLICAS}
      resources:
        limits: {memory: 256m, cpus: "0.25"}
"""
PARAMETERS = {
    "type": "object",
    "properties": {
        "REPLICAS": {"type": "integer", "default": 2, "minimum": 1, "maximum": 50},
        "TAG": {"type": "string", "default": "1.27"},
    },
}
KUBE = """apiVersion: v1
kind: ConfigMap
metadata: {name: settings}
data: {size: "${SIZE}"}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  replicas: ${REPLICAS}
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers:
        - name: web
          image: nginx
          resources: {limits: {memory: 128Mi, cpu: 100m}}
"""
KUBE_PARAMETERS = {
    "type": "object",
    "properties": {"REPLICAS": {"type": "integer", "default": 1}, "SIZE": {"type": "string", "default": "s"}},
}


@pytest.fixture
def bpctl(socket_app, tmp_path):
    with serving(socket_app) as port:
        client = Bpctl(f"http://127.0.0.1:{port}", tmp_path / "config")
        client.api = SocketClient(port)
        yield client


@pytest.fixture
def web(bpctl, tmp_path):
    """alice's public template `web`, pushed with bpctl, and a profile of 2 GiB, 2 CPUs and 10
    containers that is her default (the template at its defaults needs 512 MiB, 0.5 CPU, 2)."""
    (tmp_path / "web.yml").write_text(WEB)
    (tmp_path / "parameters.json").write_text(json.dumps(PARAMETERS))
    done = bpctl(
        "push",
        str(tmp_path / "web.yml"),
        "--entitlement",
        "public",
        "--tag",
        "nginx",
        "--parameters",
        str(tmp_path / "parameters.json"),
        "-o",
        "json",
        **ALICE,
    )
    assert done.code == 0, done.err
    made = bpctl(
        "profile", "create", "team", "--memory", "2Gi", "--cpu", "2", "--containers", "10", "--default", **ALICE
    )
    assert made.code == 0, made.err
    return json.loads(done.out)


def problem_lines(result):
    return [line.strip() for line in result.err.splitlines()[1:]]


# login, logout and credentials


def test_login_keeps_a_private_token_and_logout_revokes_it(bpctl):
    done = bpctl("login", "-u", "alice", "--password-stdin", input=PASSWORD + "\n")
    assert done.code == 0 and PASSWORD not in done.out + done.err
    stored = bpctl.home / "bpctl" / "tokens.json"
    assert stat.S_IMODE(stored.stat().st_mode) == 0o600
    assert stat.S_IMODE(stored.parent.stat().st_mode) == 0o700
    entry = json.loads(stored.read_text())[bpctl.url]
    assert PASSWORD not in stored.read_text() and entry["username"] == "alice"
    assert bpctl("ls").code == 0  # the stored token signs in
    assert bpctl.api.get("/users/me", headers={"Authorization": "Bearer " + entry["token"]}).status == 200
    done = bpctl("logout")
    assert done.code == 0 and "revoked" in done.err and entry["token"] not in done.out + done.err
    assert bpctl.api.get("/users/me", headers={"Authorization": "Bearer " + entry["token"]}).status == 401
    assert json.loads(stored.read_text()) == {}
    assert bpctl("logout").err.startswith("Not signed in")
    assert bpctl("logout", "extra").code == 2


def test_logout_everywhere_revokes_every_token_of_the_user(bpctl):
    other = bpctl.api.post("/tokens", user="alice").json["token"]  # another machine's, or one that leaked
    bobs = bpctl.api.post("/tokens", user="bob").json["token"]
    assert bpctl("login", **ALICE).code == 0
    done = bpctl("logout", "--everywhere")
    assert done.code == 0 and "every token of yours is revoked" in done.err
    assert bpctl.api.get("/users/me", headers={"Authorization": "Bearer " + other}).status == 401
    assert bpctl.api.get("/users/me", headers={"Authorization": "Bearer " + bobs}).status == 200


def test_logout_keeps_the_token_while_the_service_is_out_of_reach(bpctl):
    assert bpctl("login", **ALICE).code == 0
    stored = bpctl.home / "bpctl" / "tokens.json"
    token = json.loads(stored.read_text())[bpctl.url]["token"]
    away = Bpctl("http://127.0.0.1:9", bpctl.home)
    entry = json.loads(stored.read_text())
    stored.write_text(json.dumps({away.url: entry[bpctl.url]}))
    done = away("logout")
    assert done.code == 4 and json.loads(stored.read_text())[away.url]["token"] == token  # to revoke later


def test_login_reads_the_password_never_showing_it_and_takes_the_environment(bpctl):
    done = bpctl.process("login", "-u", "alice", input=PASSWORD + "\n")  # piped in where a terminal would prompt
    assert done.code == 0 and "as alice" in done.err and PASSWORD not in done.out + done.err
    assert bpctl("login", **ALICE).code == 0  # BPCTL_USERNAME and BPCTL_PASSWORD, no prompt


def test_login_refused_and_misused(bpctl):
    done = bpctl("login", "-u", "alice", "--password-stdin", input="wrong password\n")
    assert done.code == 3 and "401" in done.err and "wrong password" not in done.out + done.err
    assert not (bpctl.home / "bpctl" / "tokens.json").exists()
    assert bpctl.process("login", "--no-such-option").code == 2
    scripted = bpctl.run("login", "-u", "alice", input=b"")  # no terminal, no BPCTL_PASSWORD: a usage error
    assert scripted.returncode == 2 and b"set BPCTL_PASSWORD, or pipe it in with --password-stdin" in scripted.stderr
    assert b"Warning" not in scripted.stderr  # nothing but the reason (Python's prompt warned that it may echo)


def test_a_token_file_others_may_read_is_not_used(bpctl):
    assert bpctl("login", **ALICE).code == 0
    stored = bpctl.home / "bpctl" / "tokens.json"
    stored.chmod(0o644)
    done = bpctl("ls")
    assert done.code == 2 and "chmod 600" in done.err


def test_without_credentials_it_says_how_to_sign_in(bpctl):
    done = bpctl.process("ls")
    assert done.code == 3 and "401" in done.err and "bpctl login" in done.err
    done = bpctl("ls", BPCTL_TOKEN="not-a-token")
    assert done.code == 3 and "not-a-token" not in done.out + done.err


def test_credentials_never_show_in_output_or_the_process_list(bpctl, web):
    secret = {"BPCTL_USERNAME": "alice", "BPCTL_PASSWORD": PASSWORD}
    for args in (["ls"], ["get", "web"], ["get", "nope"], ["render", "web", "--set", "REPLICAS=0"], ["fit", "web"]):
        done = bpctl(*args, **secret)
        assert PASSWORD not in done.out + done.err, args
    # the password is never an argument, so never in the process list: only options without it exist
    assert "--password " not in bpctl("login", "--help").out


# the service out of reach, or failing


def test_an_unreachable_service_names_the_url(bpctl):
    done = Bpctl("http://127.0.0.1:9", bpctl.home).process("ls", **ALICE)
    assert done.code == 4 and "could not reach http://127.0.0.1:9" in done.err


def test_a_failing_service_is_exit_4_with_its_request_id(tmp_path):
    class Failing(http.server.BaseHTTPRequestHandler):
        def do_GET(self):  # noqa: N802
            body = json.dumps({"title": "Service Unavailable", "status": 503, "requestId": "r-42"}).encode()
            self.send_response(503)
            self.send_header("Content-Type", "application/problem+json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass

    with local_server(Failing) as url:
        done = Bpctl(url, tmp_path)("ls", **ALICE)
    assert done.code == 4 and "503" in done.err and "r-42" in done.err


# ls, get, pull


def test_ls_with_the_lists_filters(bpctl, web):
    bpctl.api.post("/blueprints", json={"name": "db", "blueprintType": "helm", "tags": ["data"]}, user="alice")
    done = bpctl("ls", **ALICE)
    assert done.code == 0 and done.out.splitlines()[0].split() == [
        "ID",
        "NAME",
        "VERSION",
        "TYPE",
        "OWNER",
        "SOURCE",
        "REV",
        "STARS",
        "TAGS",
    ]
    assert [line.split()[1] for line in done.out.splitlines()[1:]] == ["db", "web"]
    for filters, names in [
        (["-q", "we"], ["web"]),
        (["--tag", "data"], ["db"]),
        (["--type", "compose"], ["web"]),
        (["--fits-profile", "team"], ["web"]),
        (["--name", "nope"], []),
        (["--limit", "1"], ["db"]),
        (["--entitlement", "owner"], ["db"]),
    ]:
        done = bpctl("ls", *filters, "-o", "json", **ALICE)
        assert [item["name"] for item in json.loads(done.out)] == names, filters
    assert bpctl("ls", "--limit", "0", **ALICE).code == 2
    done = bpctl("ls", "--fits-profile", "nope", **ALICE)
    assert done.code == 3 and "no profile named 'nope'" in done.err


def test_get_by_name_or_id_and_where_names_repeat(bpctl, web):
    done = bpctl("get", "web", **ALICE)
    assert done.code == 0 and "needs:       2 containers, 512Mi memory, 0.5 cpu\n" in done.out
    assert json.loads(bpctl("get", web["id"], "-o", "json", **ALICE).out)["id"] == web["id"]
    bobs = bpctl.api.post("/blueprints", json={"name": "web", "entitlementType": "PUBLIC"}, user="bob").json
    assert json.loads(bpctl("get", "web", "-o", "json", **ALICE).out)["id"] == web["id"]  # hers to change
    assert json.loads(bpctl("get", "web", "-o", "json", **BOB).out)["id"] == bobs["id"]
    done = bpctl("get", "web", **VICTOR)  # neither is his: which one?
    assert done.code == 2 and done.out == "" and "--id ID" in done.err
    assert re.search(rf"{web['id']}\s+web\s+alice\s+-", done.err) and re.search(rf"{bobs['id']}\s+web\s+bob", done.err)
    assert json.loads(bpctl("get", "web", "--owner", "bob", "-o", "json", **VICTOR).out)["owner"] == "bob"
    assert json.loads(bpctl("get", "--id", bobs["id"], "-o", "json", **VICTOR).out)["owner"] == "bob"
    assert bpctl("get", **ALICE).code == 2
    assert bpctl("get", "web", "--id", web["id"], **ALICE).code == 2  # a name or an id, not both
    done = bpctl("get", "nope", **ALICE)
    assert done.code == 3 and "no blueprint named 'nope'" in done.err
    private = bpctl.api.post("/blueprints", json={"name": "mine"}, user="bob").json
    assert bpctl("get", private["id"], **ALICE).code == 3  # not hers to read: as if absent
    catalog = {
        "version": "3",
        "templates": [
            {"id": 1, "type": 1, "title": "twin", "image": "nginx"},
            {"id": 2, "type": 1, "title": "twin", "image": "httpd"},
        ],
    }
    bpctl.api.post("/imports", json={"format": "portainer", "source": "v3", "document": catalog}, user="alice")
    done = bpctl("get", "twin", **ALICE)  # one owner, one name: their sources tell them apart
    assert done.code == 2 and "SOURCE:KEY" in done.err and "v3:1" in done.err and "v3:2" in done.err
    assert json.loads(bpctl("get", "v3:2", "-o", "json", **ALICE).out)["source"]["key"] == "2"
    done = bpctl("get", "1", **ALICE)  # a key is no name: the names it goes by are suggested
    assert done.code == 3 and "did you mean 'twin' (v3:1)?" in done.err


def test_pull_is_byte_for_byte(bpctl, web):
    text = "a: 1   \r\nb: |\n  two\n\n\n"
    made = bpctl.api.post("/blueprints", json={"name": "raw", "yml": text}, user="alice").json
    done = bpctl.run("pull", "raw", **ALICE)
    assert done.returncode == 0 and done.stdout == text.encode()
    bpctl.api.patch(f"/blueprints/{made['id']}", json={"yml": "a: 2\n"}, user="alice")
    assert bpctl.run("pull", "raw", "--rev", "1", **ALICE).stdout == text.encode()
    assert bpctl("pull", "raw", "--rev", "0", **ALICE).code == 2
    bpctl.api.post("/blueprints", json={"name": "empty"}, user="alice")
    done = bpctl("pull", "empty", **ALICE)
    assert done.code == 3 and "no definition" in done.err


# push, history, diff, restore, star


def test_push_creates_then_makes_revisions(bpctl, web, tmp_path):
    assert web["blueprintType"] == "compose" and web["rev"] == 1 and web["parameters"] == PARAMETERS
    file = tmp_path / "web.yml"
    file.write_text(WEB.replace("memory: 256m", "memory: 128m"))
    done = bpctl("push", str(file), "--version", "1.1", **ALICE)
    assert done.code == 0 and done.out.strip() == f"web: updated, revision 2 ({web['id']})"
    assert bpctl("push", str(file), **ALICE).out.strip() == f"web: unchanged, revision 2 ({web['id']})"
    stored = bpctl.api.get(f"/blueprints/{web['id']}", user="alice").json
    assert (
        stored["yml"] == file.read_text()
        and stored["version"] == "1.1"
        and stored["requirements"]["memoryBytes"] == 256 * 1024**2
    )  # noqa: E501
    # bob has no blueprint named web: his push creates his own
    assert "created" in bpctl("push", str(file), **BOB).out


def test_push_reads_standard_input_and_the_kind_of_file(bpctl, tmp_path):
    (tmp_path / "parameters.yaml").write_text(yaml.safe_dump(KUBE_PARAMETERS))
    done = bpctl(
        "push",
        "-",
        "--name",
        "kube",
        "--parameters",
        str(tmp_path / "parameters.yaml"),
        "-o",
        "json",
        input=KUBE,
        **ALICE,
    )
    made = json.loads(done.out)
    assert done.code == 0 and made["blueprintType"] == "kubernetes" and made["requirements"]["containers"] == 1
    plain = bpctl("push", "-", "--name", "notes", "-o", "json", input="just: yaml\n", **ALICE)
    assert plain.code == 0 and json.loads(plain.out)["blueprintType"] is None
    assert "notes: neither a Compose file nor Kubernetes manifests: kept unchecked" in plain.err
    refused = bpctl("push", "-", "--name", "broken", input="a: [\n", **ALICE)  # YAML the service refuses
    assert refused.code == 3 and "unchecked" not in refused.err and "yml" in refused.err


@pytest.mark.parametrize(
    "broken, problem",
    [
        ("apiVersion: v1\nmetadata: {name: settings}\ndata: {a: b}\n", "kind"),  # a manifest without its kind
        (KUBE.replace("kind: Deployment\n", ""), "kind"),  # the second of two
        ("version: '3.8'\nvolumes:\n  data: {}\n", "services"),  # a Compose file with no services
        ("services:\n", "services"),
    ],
)
def test_push_checks_a_broken_file_as_the_format_it_looks_like(bpctl, broken, problem):
    done = bpctl("push", "-", "--name", "broken", input=broken, **ALICE)
    assert done.code == 3 and any(problem in line for line in problem_lines(done)), done.err
    assert bpctl.api.get("/blueprints?name=broken", user="alice").json["items"] == []
    assert bpctl("push", "-", input="a: 1\n", **ALICE).code == 2  # standard input needs --name


def test_push_refused_shows_each_problem_and_a_dry_run_stores_nothing(bpctl, tmp_path):
    bad = tmp_path / "bad.yml"
    bad.write_text("services:\n  web:\n    imag: nginx\n    mem_limit: 1zz\n")
    done = bpctl.process("push", str(bad), **ALICE)
    assert done.code == 3 and "422" in done.err
    lines = problem_lines(done)
    assert any(line.startswith("yml: services.web") and "imag" in line for line in lines)
    assert any("mem_limit" in line for line in lines)
    good = tmp_path / "good.yml"
    good.write_text("services:\n  web:\n    image: nginx\n")
    done = bpctl("push", str(good), "--dry-run", **ALICE)
    assert done.code == 0 and "would be created" in done.out
    assert bpctl.api.get("/blueprints", user="alice").json["items"] == []


def test_history_diff_and_restore(bpctl, web, tmp_path):
    file = tmp_path / "web.yml"
    file.write_text(WEB.replace("nginx:${TAG}", "nginx:${TAG}-alpine"))
    assert bpctl("push", str(file), "--description", "alpine", **ALICE).code == 0
    done = bpctl("history", "web", **ALICE)
    assert done.code == 0 and [line.split()[0] for line in done.out.splitlines()] == ["REV", "2", "1"]
    done = bpctl("diff", "web", **ALICE)
    assert done.code == 0 and "description  -     alpine" in done.out
    assert "-    image: nginx:${TAG}\n+    image: nginx:${TAG}-alpine" in done.out
    assert json.loads(bpctl("diff", "web", "--from", "1", "--to", "2", "-o", "json", **ALICE).out)["to"] == 2
    assert bpctl("diff", "web", "--from", "9", **ALICE).code == 3
    assert bpctl("diff", "web", "--from", "0", **ALICE).code == 2
    assert bpctl("history", **ALICE).code == 2
    assert bpctl("history", "nope", **ALICE).code == 3
    done = bpctl("restore", "web", "1", **ALICE)
    assert done.code == 0 and done.out.strip() == "web: revision 1 restored as revision 3"
    assert bpctl.api.get(f"/blueprints/{web['id']}", user="alice").json["yml"] == WEB
    assert bpctl("restore", "web", **ALICE).code == 2
    assert bpctl("restore", "web", "1", **VICTOR).code == 3  # a viewer changes nothing


def test_a_star_is_given_and_taken_back(bpctl, web):
    assert bpctl("star", "web", **BOB).code == 0
    assert json.loads(bpctl("get", "web", "-o", "json", **BOB).out)["starred"] is True
    assert [item["name"] for item in json.loads(bpctl("ls", "--starred", "-o", "json", **BOB).out)] == ["web"]
    assert bpctl("star", "web", "--off", **BOB).code == 0
    assert json.loads(bpctl("get", "web", "-o", "json", **BOB).out)["stars"] == 0
    assert bpctl("star", **BOB).code == 2
    private = bpctl.api.post("/blueprints", json={"name": "private"}, user="alice").json
    assert bpctl("star", private["id"], **BOB).code == 3


# fit and render


def test_fit_to_the_default_profile_or_a_named_one(bpctl, web):
    done = bpctl("fit", "web", **ALICE)
    assert done.code == 0 and done.out.splitlines()[-1] == "fits"
    assert done.out.splitlines()[1].split() == ["memory", "512Mi", "0B", "2Gi", "2Gi", "1.5Gi", "fits"]
    assert bpctl("profile", "create", "tiny", "--memory", "100Mi", **ALICE).code == 0
    done = bpctl.process("fit", "web", "--profile", "tiny", **ALICE)
    assert done.code == 1 and done.out.splitlines()[-1] == "does not fit"
    result = json.loads(bpctl("fit", "web", "--profile", "tiny", "-o", "json", **ALICE).out)
    assert result["resources"]["memory"]["verdict"] == "exceeds"
    assert bpctl("fit", **ALICE).code == 2
    done = bpctl("fit", "web", **BOB)  # bob has no default profile
    assert done.code == 3 and "profile: You have no default profile" in done.err


def test_fit_on_a_cluster_counts_a_compose_blueprints_volumes_as_claims(bpctl, web):
    kept = "services:\n  db:\n    image: postgres\n    volumes: [data:/var/lib/postgresql/data]\nvolumes: {data: {}}\n"
    bpctl.api.post("/blueprints", json={"name": "db", "blueprintType": "compose", "yml": kept}, user="alice")
    storage = {
        target: json.loads(bpctl("fit", "db", *target, "-o", "json", **ALICE).out)["resources"]["storage"]["required"]
        for target in ((), ("--target", "kubernetes"))
    }
    assert list(storage.values()) == [0, 2**30]


def test_render_types_values_from_sets_and_files(bpctl, web, tmp_path):
    first, second = tmp_path / "first.yaml", tmp_path / "second.yaml"
    first.write_text("REPLICAS: 3\nTAG: 1.10\n")  # TAG as written: "1.10", not the number 1.1
    second.write_text("REPLICAS: 4\n")
    done = bpctl("render", "web", "-f", str(first), "-f", str(second), **ALICE)
    assert done.code == 0 and "image: nginx:1.10\n" in done.out and "replicas: 4\n" in done.out
    done = bpctl("render", "web", "-f", str(first), "--set", "REPLICAS=5", "--set", "REPLICAS=6", **ALICE)
    assert "replicas: 6\n" in done.out and yaml.safe_load(done.out)["services"]["web"]["deploy"]["replicas"] == 6
    rendered = json.loads(bpctl("render", "web", "--set", "REPLICAS=7", "-o", "json", **ALICE).out)
    assert rendered["values"] == {"REPLICAS": 7, "TAG": "1.27"} and rendered["requirements"]["containers"] == 7
    assert bpctl("render", "web", "--set", "REPLICAS", **ALICE).code == 2
    done = bpctl("render", "web", "--set", "REPLICAS=0", **ALICE)
    assert done.code == 3 and done.out == "" and "values.REPLICAS" in done.err


def test_render_to_a_profile_and_the_most_that_fits(bpctl, web):
    done = bpctl("render", "web", "--set", "REPLICAS=6", "--profile", "team", **ALICE)
    assert done.code == 0 and "replicas: 6" in done.out
    done = bpctl("render", "web", "--set", "REPLICAS=9", "--profile", "team", **ALICE)
    assert done.code == 1 and done.out == "" and "exceeds" in done.err  # nothing to deploy
    done = bpctl("render", "web", "--profile", "team", "--maximize", "REPLICAS", **ALICE)
    assert done.code == 0 and "replicas: 8\n" in done.out and "REPLICAS=8" in done.err  # 8 x 256 MiB is 2 GiB
    assert bpctl("render", "web", "--maximize", "REPLICAS", **ALICE).code == 2  # the most that fits what?


def test_a_render_says_where_it_answers_before_anything_is_deployed(bpctl, tmp_path):
    (tmp_path / "site.yml").write_text(WEB + "x-routes:\n  - {service: web, port: 80}\n")
    (tmp_path / "parameters.json").write_text(json.dumps(PARAMETERS))
    assert (
        bpctl("push", str(tmp_path / "site.yml"), "--parameters", str(tmp_path / "parameters.json"), **ALICE).code == 0
    )
    assert bpctl("profile", "create", "apps", "--domain", "apps.example.com", **ALICE).code == 0
    done = bpctl("render", "site", "--profile", "apps", **ALICE)
    assert done.code == 0 and "answers on https://site.apps.example.com -> web:80\n" in done.err
    assert "Host(`site.apps.example.com`)" in done.out


def test_render_pipes_into_docker_compose(bpctl, web):
    done = bpctl.run("render", "web", "--set", "REPLICAS=3", "--set", "TAG=1.28", **ALICE)
    assert done.returncode == 0 and done.stderr == b""
    accepted, project = compose_oracle.config(done.stdout.decode())
    assert accepted, project
    assert project["services"]["web"]["image"] == "nginx:1.28" and project["services"]["web"]["deploy"]["replicas"] == 3
    # `bpctl render web | docker compose -f - config --services`: two processes, one pipe
    render = subprocess.Popen([PROGRAM, "render", "web"], stdout=subprocess.PIPE, env=bpctl.environ(**ALICE))
    compose = [compose_oracle.binary(), "-f", "-", "--project-name", "tour", "config", "--services"]
    through = subprocess.run(compose, stdin=render.stdout, capture_output=True, timeout=30)
    render.stdout.close()
    assert render.wait(timeout=30) == 0 and through.returncode == 0 and through.stdout.decode().split() == ["web"]


def test_a_kubernetes_render_reads_back_as_the_same_stream(bpctl):
    made = bpctl.api.post(
        "/blueprints",
        json={"name": "kube", "blueprintType": "kubernetes", "yml": KUBE, "parameters": KUBE_PARAMETERS},
        user="alice",
    )
    assert made.status == 201, made.json
    done = bpctl.run("render", "kube", "--set", "REPLICAS=3", "--set", "SIZE=large", **ALICE)
    assert done.returncode == 0
    documents = list(yaml.safe_load_all(done.stdout))
    expected = list(yaml.safe_load_all(KUBE.replace("${SIZE}", "large").replace("${REPLICAS}", "3")))
    assert documents == expected and documents[1]["spec"]["replicas"] == 3


def test_render_and_deploy_for_kubernetes_pipe_into_kubectl(bpctl, web):
    done = bpctl.run("render", "web", "--target", "kubernetes", "--namespace", "shop", "--volume-size", "2Gi", **ALICE)
    assert done.returncode == 0, done.stderr
    kinds = [one["kind"] for one in yaml.safe_load_all(done.stdout) if one]
    assert kinds == ["Service", "Deployment", "NetworkPolicy"] and b"namespace: shop" in done.stdout
    assert taken_by_kubernetes(done.stdout.decode())
    # the offline check docs/on-kubernetes.md gives: silent and 0 on the render, 1 naming the place on one changed
    validator = [str(PROGRAM.parent / "kubernetes-validate"), "--strict", "--quiet", "-"]
    checked = subprocess.run(validator, input=done.stdout, capture_output=True, timeout=120)
    assert (checked.returncode, checked.stdout, checked.stderr) == (0, b"", b"")
    broken = done.stdout.replace(b"replicas: 2", b"replicas: two", 1)
    assert broken != done.stdout
    refused = subprocess.run(validator, input=broken, capture_output=True, timeout=120)
    assert (
        refused.returncode == 1 and b"spec.replicas: 'two' is not of type 'integer'" in refused.stdout + refused.stderr
    )
    deployed = bpctl("deploy", "web", "shop", "--profile", "team", "--target", "kubernetes", **ALICE)
    assert deployed.code == 0, deployed.err
    objects = [one for one in yaml.safe_load_all(deployed.out) if one]
    assert [one["kind"] for one in objects[:2]] == ["Namespace", "ResourceQuota"] and objects[0]["metadata"][
        "name"
    ] == "shop"
    assert taken_by_kubernetes(deployed.out)
    assert bpctl("render", "web", "--volume-size", "2Gi", **ALICE).code == 2  # a claim's size needs the target
    gone = bpctl("undeploy", "shop", **ALICE)
    assert gone.code == 0 and "`kubectl delete namespace shop`" in gone.err  # what stays on the cluster is said


# import and export


def test_import_a_portainer_catalog_with_its_stack_files(bpctl):
    catalog = corpus.folder() / "portainer" / "portainer-templates-v3.json"
    files = corpus.folder() / "portainer" / "portainer-templates"
    done = bpctl("import", str(catalog), "--format", "portainer", "--files-from", str(files), "--dry-run", **ALICE)
    assert done.code == 0 and "would be: 68 created, 1 skipped" in done.err
    assert bpctl.api.get("/blueprints", user="alice").json["items"] == []
    done = bpctl("import", str(catalog), "--format", "portainer", "--files-from", str(files), "-o", "json", **ALICE)
    report = json.loads(done.out)
    assert done.code == 0 and report["source"] == "portainer-templates-v3.json"
    assert {outcome: n for outcome, n in report["counts"].items() if n} == {"created": 68, "skipped": 1}
    again = bpctl("import", str(catalog), "--format", "portainer", "--files-from", str(files), **ALICE)
    assert again.code == 0 and again.err.strip().endswith("68 unchanged, 1 skipped")


def checkout(tmp_path, platform, below, names):
    """A clone of a platform's catalog repository holding `names` of the corpus's templates."""
    root = tmp_path / platform
    folder = root / below
    folder.mkdir(parents=True)
    for name in names:
        source = corpus.folder() / platform / name
        if source.is_dir():
            shutil.copytree(source, folder / name)
        else:
            shutil.copy(source, folder / name)
    return root


@pytest.mark.parametrize(
    ("platform", "below", "names", "skipped"),
    [
        ("dokploy", "blueprints", ["ackee", "picsur"], "picsur"),
        ("coolify", "templates/compose", ["activepieces.yaml", "azimutt.yaml"], "azimutt"),
        ("caprover", "public/v4/apps", ["activepieces.yml", "appwrite.yml"], None),
    ],
)
def test_import_a_platforms_catalog_from_a_checkout_a_folder_or_one_template(
    bpctl, tmp_path, platform, below, names, skipped
):
    root = checkout(tmp_path, platform, below, names)
    done = bpctl("import", str(root), "--format", platform, **ALICE)
    assert done.code == 0, done.err
    assert f"{len(names) - bool(skipped)} created" in done.err
    if skipped:  # the table says why
        row = next(line for line in done.out.splitlines() if line.startswith(skipped))
        assert "skipped" in row and ("jwt" in row or "ignore: true" in row)
    for part in (root / below / names[0], root / below):  # one template, the templates' folder: the same catalog
        again = json.loads(bpctl("import", str(part), "--format", platform, "-o", "json", **ALICE).out)
        assert again["source"] == root.name and again["counts"]["created"] == 0, again["counts"]
    assert len(bpctl.api.get("/blueprints", user="alice").json["items"]) == len(names) - bool(skipped)


@pytest.mark.parametrize(
    ("platform", "below", "names", "given", "said"),
    [
        ("dokploy", "blueprints", ["ackee"], "coolify", "templates/compose/*.yml"),
        ("coolify", "templates/compose", ["activepieces.yaml"], "dokploy", "blueprints/*/docker-compose.yml"),
    ],
)
def test_a_catalog_imported_as_another_platforms_says_which_it_looks_like(
    bpctl, tmp_path, platform, below, names, given, said
):
    root = checkout(tmp_path, platform, below, names)
    for part in (root, root / below):
        refused = bpctl("import", str(part), "--format", given, **ALICE)
        assert refused.code == 2 and refused.out == ""
        assert f"holds no {given} template ({said})" in refused.err
        assert f"laid out as a {platform} catalog: --format {platform}." in refused.err or part != root
    assert bpctl.api.get("/blueprints", user="alice").json["items"] == []  # nothing was sent


def test_import_reads_the_formats_from_the_service(bpctl, tmp_path):
    """bpctl keeps no list of formats: an unknown one is a usage error naming those the service
    serves, read from it, before anything is read or sent."""
    served = [fmt["format"] for fmt in bpctl.api.get("/formats", user="alice").json["imports"]]
    refused = bpctl("import", str(tmp_path / "nothing-read"), "--format", "helm", **ALICE)
    assert refused.code == 2 and f"--format 'helm' is none the service reads: {', '.join(served)}." in refused.err
    assert "dokploy" in served and bpctl.api.get("/blueprints", user="alice").json["items"] == []


def test_import_fetches_urls_and_stack_files(bpctl, tmp_path):
    root = corpus.folder() / "portainer"
    with local_server(static(root)) as url:
        done = bpctl(
            "import",
            f"{url}/portainer-templates-v3.json",
            "--format",
            "portainer",
            "--raw-base",
            f"{url}/portainer-templates",
            "-o",
            "json",
            **ALICE,
        )
    report = json.loads(done.out)
    assert done.code == 0 and report["source"] == f"{url}/portainer-templates-v3.json"
    assert report["counts"]["created"] == 68


def test_without_a_network_an_import_says_so_once_and_why_each_template_is_skipped(bpctl, monkeypatch):
    """The community catalog's stacks live in other repositories: with no connection, one line
    counts them (the first fetch found no connection; the others are not tried), and the table
    says why each is skipped."""
    tried = []
    monkeypatch.setattr(fetch, "fetch", lambda url, real=fetch.fetch: tried.append(url) or real(url))
    catalog = corpus.folder() / "portainer" / "lissy93-templates.json"
    done = bpctl(
        "import", str(catalog), "--format", "portainer", "--raw-base", "http://127.0.0.1:9", "--dry-run", **ALICE
    )
    warnings = [line for line in done.err.splitlines() if line.startswith("not fetched")]
    assert len(warnings) == 1 and "no connection" in warnings[0] and len(tried) == 1, warnings
    skipped = [line for line in done.out.splitlines() if " skipped " in line]
    assert skipped and all("is not among the files given" in line or "an Edge stack" in line for line in skipped)


def test_fetching_is_limited_in_size_and_time(tmp_path, monkeypatch):
    monkeypatch.setattr(fetch, "SECONDS", 1)
    with local_server(streaming(b" ", 50, pause=0.1)) as url:  # each byte in time, the whole not
        done = Bpctl(url, tmp_path)("import", f"{url}/slow.json", "--format", "native", **ALICE)
        assert done.code == 4 and "longer than 1 s" in done.err
    monkeypatch.setattr(fetch, "MAX_BYTES", 1024 * 1024)
    with local_server(streaming(b"x" * 65536, 100)) as url:
        done = Bpctl(url, tmp_path)("import", f"{url}/big.json", "--format", "native", **ALICE)
        assert done.code == 4 and "larger than 1 MiB" in done.err
        done = Bpctl(url, tmp_path)("import", f"{url.rsplit(':', 1)[0]}:9/x.json", "--format", "native", **ALICE)
        assert done.code == 4 and "could not fetch" in done.err


def test_import_compose_with_its_env_file(bpctl, tmp_path):
    (tmp_path / "db.yml").write_text(
        "services:\n  db:\n    image: postgres:${TAG:-16}\n"
        "    environment:\n      POSTGRES_PASSWORD: ${POSTGRES_PASSWORD}\n"
    )
    (tmp_path / "db.env").write_text("TAG=16.4\n")
    done = bpctl(
        "import",
        str(tmp_path / "db.yml"),
        "--format",
        "compose",
        "--env-file",
        str(tmp_path / "db.env"),
        "--tag",
        "data",
        **ALICE,
    )
    assert done.code == 0 and done.out.splitlines()[1].split()[:3] == ["db", "db", "created"]
    made = json.loads(bpctl("get", "db", "-o", "json", **ALICE).out)
    assert made["parameters"]["properties"]["TAG"]["default"] == "16.4" and made["tags"] == ["data"]
    assert made["parameters"]["properties"]["POSTGRES_PASSWORD"]["writeOnly"] is True
    assert bpctl("import", str(tmp_path / "db.yml"), **ALICE).code == 2  # which format?
    assert bpctl("import", str(tmp_path / "db.yml"), "--format", "portainer", "--name", "x", **ALICE).code == 2


def test_import_refused_templates_are_exit_3_with_their_problems(bpctl, tmp_path):
    template = corpus.openshift_templates()["redis-persistent.json"]
    deployment = next(item for item in template["objects"] if item["kind"] == "Deployment")
    deployment["spec"]["replicas"] = "two"  # what no Kubernetes takes
    (tmp_path / "redis.json").write_text(json.dumps(template))
    done = bpctl("import", str(tmp_path / "redis.json"), "--format", "openshift", **ALICE)
    assert done.code == 3 and "refused" in done.out and "spec.replicas" in done.err


def test_export_round_trips_and_an_openshift_template(bpctl, web, tmp_path):
    done = bpctl.run("export", "--tag", "nginx", **ALICE)
    document = json.loads(done.stdout)
    assert done.returncode == 0 and [b["name"] for b in document["blueprints"]] == ["web"]
    file = tmp_path / "backup.json"
    file.write_text(done.stdout.decode())
    assert bpctl("import", str(file), "--format", "native", **BOB).code == 0
    assert json.loads(bpctl("get", "web", "--owner", "bob", "-o", "json", **BOB).out)["yml"] == WEB
    made = bpctl.api.post(
        "/blueprints",
        json={"name": "kube", "blueprintType": "kubernetes", "yml": KUBE, "parameters": KUBE_PARAMETERS},
        user="alice",
    )
    assert made.status == 201
    template = yaml.safe_load(bpctl("export", "kube", "--format", "openshift", **ALICE).out)
    assert template["kind"] == "Template" and {p["name"] for p in template["parameters"]} == {"REPLICAS", "SIZE"}
    assert bpctl("export", "web", **ALICE).code == 2  # one blueprint: the openshift format only
    assert bpctl("export", web["id"], "--format", "openshift", **ALICE).code == 3  # a Compose blueprint: 409


# instances


def test_deploy_pipes_into_docker_compose_and_an_instance_is_upgraded_and_undeployed(bpctl, web):
    compose = compose_oracle.binary()
    piped = subprocess.run(
        [
            shutil.which("bash"),
            "-c",
            f"set -o pipefail; '{PROGRAM}' deploy web shop --profile team --set REPLICAS=3"
            f" | '{compose}' -p shop -f - config --format json",
        ],
        capture_output=True,
        env=bpctl.environ(**ALICE),
        timeout=60,
    )
    assert piped.returncode == 0, piped.stderr.decode()
    project = json.loads(piped.stdout)
    assert project["name"] == "shop" and project["services"]["web"]["deploy"]["replicas"] == 3
    assert b"shop: admitted" in piped.stderr
    again = bpctl.run("deploy", "web", "shop", "--profile", "team", **ALICE)
    assert again.returncode == 3 and b"already" in again.stderr  # a name is taken once
    full = bpctl.run("deploy", "web", "big", "--profile", "team", "--set", "REPLICAS=6", **ALICE)
    assert full.returncode == 1 and full.stdout == b""  # 3 + 6 replicas of 256 MiB: over 2 GiB
    assert b"memory: requires 1.5 GiB, 768 MiB of 2 GiB used, 1.25 GiB available" in full.stderr
    listed = bpctl("instances", **ALICE).out.splitlines()
    assert listed[0].split()[:5] == ["NAME", "REV", "TARGET", "BLUEPRINT", "PROFILE"]
    assert listed[1].split()[:5] == ["shop", "1", "compose", "web", "team"]  # names, not ids
    [shop] = bpctl.api.get("/instances?name=shop", user="alice").json["items"]
    kept = bpctl.api.get(f"/instances/{shop['id']}/yml", user="alice").body
    assert bpctl.run("instance", "yml", "shop", **ALICE).stdout == kept  # the kept definition, byte for byte
    shown = bpctl("instance", "get", "shop", **ALICE).out
    assert f"blueprint: web ({web['id']}), revision 1" in shown and "values:    REPLICAS=3" in shown
    assert "needs:     3 containers, 768Mi memory, 0.75 cpu" in shown
    assert bpctl("instance", "yml", "nothing", **ALICE).code == 3
    used = {line.split()[0]: line.split()[1:] for line in bpctl("usage", **ALICE).out.splitlines()[1:5]}
    assert used["memory"] == ["768Mi", "2Gi", "1.25Gi"] and used["containers"] == ["3", "10", "7"]
    fitted = bpctl("fit", "web", **ALICE).out.splitlines()  # 2 replicas more: what is used is shown
    assert fitted[0].split() == ["RESOURCE", "REQUIRED", "USED", "CAP", "AVAILABLE", "HEADROOM", "VERDICT"]
    assert fitted[1].split() == ["memory", "512Mi", "768Mi", "2Gi", "1.25Gi", "768Mi", "fits"]
    grown = bpctl.run("upgrade", "shop", "--set", "REPLICAS=9", **ALICE)  # 9 of 256 MiB: over 2 GiB alone
    assert grown.returncode == 1 and grown.stdout == b""
    assert b"memory: requires 2.25 GiB, 0 B of 2 GiB used" in grown.stderr  # without its own 768 MiB
    assert b"used: the profile's other instances; this one's current share is given back first" in grown.stderr
    tried = bpctl.run("upgrade", "shop", "--set", "REPLICAS=4", "--dry-run", **ALICE)
    assert tried.returncode == 0 and b"-      replicas: 3\n+      replicas: 4\n" in tried.stderr
    assert bpctl.api.get(f"/instances/{shop['id']}/yml", user="alice").body == kept  # nothing changed
    upgraded = bpctl.run("upgrade", "shop", "--set", "REPLICAS=4", **ALICE)
    assert upgraded.returncode == 0 and upgraded.stderr.endswith(tried.stderr)
    assert upgraded.stdout == tried.stdout  # what the dry run showed is what the upgrade wrote
    assert yaml.safe_load(upgraded.stdout)["services"]["web"]["deploy"]["replicas"] == 4
    assert bpctl("undeploy", "shop", **ALICE).code == 0
    assert json.loads(bpctl("usage", "team", "-o", "json", **ALICE).out)["instances"] == 0


def test_usage_says_what_the_profile_costs_a_month_where_the_operator_prices(bpctl, web, socket_app):
    assert bpctl("usage", **ALICE).out.splitlines()[-1] == "0 instances"  # no PRICES: no cost
    socket_app.config.update(PRICES="cpu=20,memoryGiB=5,currency=EUR")
    assert bpctl("deploy", "web", "shop", "--profile", "team", **ALICE).code == 0
    # at its defaults: 512 MiB x 5 + 0.5 CPU x 20 a month
    assert bpctl("usage", **ALICE).out.splitlines()[-1] == "1 instance, 12.50 EUR a month"


def test_a_team_is_made_managed_and_its_spend_shown(bpctl, socket_app):
    socket_app.config.update(PRICES="cpu=20,memoryGiB=5,currency=EUR")
    assert bpctl("team", "create", "pay", **ALICE).code == 3  # admins alone, unless the operator lets members
    assert bpctl("team", "create", "pay", "--description", "Payments", **ADMIN).code == 0
    assert bpctl("team", "add", "pay", "alice", "--role", "maintainer", **ADMIN).code == 0
    assert bpctl("team", "add", "pay", "bob", **ALICE).code == 0
    assert bpctl("team", "add", "pay", "carol", **BOB).code == 3  # a member manages nothing
    listed = bpctl("team", "ls", **ALICE).out.splitlines()
    assert listed[0].split() == ["NAME", "ROLE", "MEMBERS"]
    assert listed[1].split()[:2] == ["pay", "maintainer"] and "bob (member)" in listed[1]
    made = bpctl.api.post("/profiles", json={"name": "shared", "owner": "team:pay", "memoryCap": "1Gi"}, user="bob")
    assert made.status == 201
    spent = bpctl("team", "spend", "pay", **BOB).out.splitlines()
    assert spent[0].split() == ["PROFILE", "MONTHLY", "CAPS", "WOULD"] and spent[1].split() == ["shared", "0.00", "-"]
    assert spent[-1] == "pay: 0.00 EUR a month"
    assert bpctl("team", "remove", "pay", "bob", **BOB).code == 0  # leaving
    assert bpctl("team", "spend", "pay", **BOB).code == 3  # no longer his to read


# profiles and completion


def test_a_profile_is_created_as_the_default_and_listed_and_bad_caps_are_refused(bpctl):
    done = bpctl("profile", "create", "team", "--memory", "2Gi", "--cpu", "500m", "--default", **ALICE)
    assert done.code == 0 and "your default" in done.out
    listed = bpctl("profile", "ls", **ALICE).out.splitlines()
    assert listed[0].split() == [
        "ID",
        "NAME",
        "DEFAULT",
        "MEMORY",
        "CPU",
        "CONTAINERS",
        "STORAGE",
        "CONTAINER",
        "DEFAULT",
        "CONTAINER",
        "MAX",
        "OWNER",
        "SOURCE",
    ]
    assert listed[1].split()[1:] == ["team", "yes", "2Gi", "0.5", "-", "-", "-", "-", "alice", "-"]
    assert bpctl("profile", "create", **ALICE).code == 2
    done = bpctl("profile", "create", "bad", "--memory", "lots", **ALICE)
    assert done.code == 3 and "memoryCap" in done.err


def test_a_profile_with_container_defaults_a_maximum_and_users_it_is_shared_with(bpctl, web, tmp_path):
    done = bpctl(
        "profile",
        "create",
        "quota",
        "--memory",
        "2Gi",
        "--cpu",
        "2",
        "--default-memory",
        "256Mi",
        "--default-cpu",
        "250m",
        "--max-memory",
        "1Gi",
        "--share",
        "bob",
        "-o",
        "json",
        **ALICE,
    )
    made = json.loads(done.out)
    assert made["containerDefaults"] == {"memory": "256Mi", "cpu": "250m"} and made["entitledUsers"] == ["bob"]
    assert made["containerMax"] == {"memory": "1Gi", "cpu": None}
    listed = {line.split()[1]: line.split() for line in bpctl("profile", "ls", **BOB).out.splitlines()[1:]}
    assert set(listed) == {"quota"} and listed["quota"][7:9] == ["256Mi/0.25", "1Gi/-"]  # shared with bob
    exported = bpctl.run("profile", "export", "quota", "--namespace", "team-a", **ALICE)
    assert exported.returncode == 0 and exported.stdout.decode().count("kind: ") == 2
    (tmp_path / "quota.yaml").write_bytes(exported.stdout)
    done = bpctl("import", str(tmp_path / "quota.yaml"), "--format", "kubernetes-quota", **ALICE)
    assert done.code == 0 and "1 unchanged" in done.err  # the profile it came from, not a second "quota"
    changed = exported.stdout.replace(b"limits.memory: 2Gi", b"limits.memory: 3Gi")
    done = bpctl("import", "-", "--source", "cluster", "--format", "kubernetes-quota", input=changed, **ALICE)
    assert done.code == 0 and "1 updated" in done.err and made["id"] in done.out
    assert bpctl("profile", "get", "quota", **ALICE).out.splitlines()[4].split() == ["memory:", "3Gi"]
    assert "created" in bpctl("import", str(tmp_path / "quota.yaml"), "--format", "kubernetes-quota", **BOB).err
    # what a cluster's own quota holds that a profile cannot is said without -o json
    cluster = yaml.safe_load_all(exported.stdout)
    quota, limit_range = cluster
    quota["spec"]["hard"].update({"pods": "20", "requests.memory": "1Gi", "requests.nvidia.com/gpu": "2"})
    limit_range["spec"]["limits"][0]["min"] = {"memory": "16Mi"}
    text = yaml.safe_dump_all([quota, limit_range])
    done = bpctl("import", "-", "--source", "gpus", "--format", "kubernetes-quota", input=text, **BOB)
    noted = [line for line in done.err.splitlines() if line.startswith("note: ")]
    assert done.code == 0 and len(noted) == 4, done.err
    for field in ("spec.hard.pods", "spec.hard.requests.memory", "spec.hard.requests.nvidia.com/gpu", ".min: "):
        assert any(field in line for line in noted), field


def test_a_profile_name_is_taken_once_unless_told_otherwise(bpctl):
    made = bpctl("profile", "create", "acme", "--memory", "2Gi", "-o", "json", **ALICE)
    assert made.code == 0, made.err
    again = bpctl("profile", "create", "acme", "--memory", "4Gi", **ALICE)
    assert again.code == 3 and json.loads(made.out)["id"] in again.err and "bpctl profile change" in again.err
    assert [p["memoryCap"] for p in bpctl.api.get("/profiles?name=acme", user="alice").json["items"]] == ["2Gi"]
    assert bpctl("profile", "create", "acme", **BOB).code == 0  # another user's name is theirs
    assert bpctl("profile", "create", "acme", "--duplicate", **ALICE).code == 0
    assert bpctl("profile", "get", "acme", **ALICE).code == 2  # two of one name: which one is asked


def test_undeclared_variables_are_warned_of_and_their_fit_is_unknown(bpctl, web, tmp_path):
    (tmp_path / "loose.yml").write_text("services:\n  app: {image: nginx, deploy: {replicas: '${REPLICAS}'}}\n")
    assert bpctl("push", str(tmp_path / "loose.yml"), **ALICE).code == 0
    shown = bpctl("get", "loose", **ALICE)
    assert "warning: REPLICAS has no value here: Docker Compose takes them from the environment" in shown.err
    fit = bpctl("fit", "loose", **ALICE)
    assert fit.code == 1 and fit.out.splitlines()[-1] == "unknown"
    assert "memory: unknown until REPLICAS is set." in fit.out
    rendered = bpctl("render", "loose", **ALICE)
    assert rendered.code == 0 and "replicas: '${REPLICAS}'" in rendered.out and "warning: REPLICAS" in rendered.err


def test_a_profile_is_shown_changed_and_deleted(bpctl, web):
    shown = bpctl("profile", "get", "team", **ALICE)
    assert shown.code == 0 and "memory:            2Gi" in shown.out and "instances:         0" in shown.out
    changed = bpctl("profile", "change", "team", "--memory", "4Gi", "--default-memory", "128Mi", "-o", "json", **ALICE)
    assert changed.code == 0, changed.err
    assert json.loads(changed.out)["memoryCap"] == "4Gi" and json.loads(changed.out)["cpuCap"] == "2"  # the rest kept
    assert json.loads(changed.out)["containerDefaults"] == {"memory": "128Mi", "cpu": None}
    assert bpctl("profile", "change", "team", **ALICE).code == 2  # nothing to change
    assert bpctl("profile", "change", "team", "--memory", "lots", **ALICE).code == 3
    assert bpctl("deploy", "web", "shop", "--profile", "team", **ALICE).code == 0
    refused = bpctl("profile", "delete", "team", **ALICE)
    assert refused.code == 3 and "1 instance spends from this profile" in refused.err
    assert bpctl("undeploy", "shop", **ALICE).code == 0
    assert bpctl("profile", "delete", "team", **ALICE).code == 0
    assert bpctl("profile", "get", "team", **ALICE).code == 3


def test_fit_says_in_words_what_took_a_default_and_what_is_unbounded(bpctl, tmp_path):
    (tmp_path / "loose.yml").write_text("services:\n  app: {image: nginx}\n  db: {image: postgres, mem_limit: 1g}\n")
    assert bpctl("push", str(tmp_path / "loose.yml"), **ALICE).code == 0
    # what no container declares is undeclared, not 0; what one leaves out makes the rest a floor
    assert "needs:       2 containers, at least 1Gi memory, cpu undeclared\n" in bpctl("get", "loose", **ALICE).out
    assert bpctl("profile", "create", "capped", "--memory", "2Gi", "--cpu", "2", **ALICE).code == 0
    done = bpctl("fit", "loose", "--profile", "capped", **ALICE)
    assert (
        done.code == 1
        and "cpu: unbounded: a container declares no cpu limit and the profile gives no default" in done.out
    )
    assert (
        bpctl(
            "profile",
            "create",
            "defaults",
            "--memory",
            "2Gi",
            "--cpu",
            "2",
            "--default-memory",
            "256Mi",
            "--default-cpu",
            "0.25",
            "--default",
            **ALICE,
        ).code
        == 0
    )
    done = bpctl("fit", "loose", **ALICE)  # the default profile: its defaults are named too
    assert done.code == 0 and done.out.splitlines()[-1] == "fits"
    assert "memory: 1 declaring none took the profile's default (256Mi each): app." in done.out
    assert "cpu: 2 declaring none took the profile's default (0.25 CPU each): app, db." in done.out


@pytest.mark.parametrize("shell", ["bash", "zsh", "fish"])
def test_completion_is_printed_for_each_known_shell_only(bpctl, shell):
    done = bpctl("completion", shell)
    assert done.code == 0 and "_BPCTL_COMPLETE" in done.out
    assert bpctl("completion", "tcsh").code == 2


def test_completion_completes_commands(bpctl):
    done = bpctl.run("ls", _BPCTL_COMPLETE="bash_complete", COMP_WORDS="bpctl re", COMP_CWORD="1")
    assert done.returncode == 0 and {"plain,render", "plain,restore"} <= set(done.stdout.decode().split())


# helpers


def streaming(chunk, count, pause=0.0):
    """A handler answering 200 with `count` times `chunk`, `pause` seconds apart."""

    class Streaming(http.server.BaseHTTPRequestHandler):
        def do_GET(self):  # noqa: N802
            self.send_response(200)
            self.end_headers()
            try:
                for _ in range(count):
                    self.wfile.write(chunk)
                    self.wfile.flush()
                    time.sleep(pause)
            except OSError:
                pass  # the client hung up, as it should

        def log_message(self, *args):
            pass

    return Streaming


def static(root):
    """A handler serving the files under `root`."""

    class Static(http.server.SimpleHTTPRequestHandler):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, directory=str(root), **kwargs)

        def log_message(self, *args):
            pass

    return Static


class local_server:  # noqa: N801
    """An HTTP server on a free loopback port for the length of a `with`; yields its URL."""

    def __init__(self, handler):
        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)

    def __enter__(self):
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        return f"http://127.0.0.1:{self.server.server_port}"

    def __exit__(self, *exc):
        self.server.shutdown()
        self.server.server_close()


def test_the_readme_tours_run_in_order_as_written(bpctl, socket_app, tmp_path):
    """The README's two tours, in its order, on one service, run as written by bash (curl, jq and
    bpctl from a clean environment; the admin's password as the README sets it; Docker Compose as
    `docker compose`; the corpus's Portainer catalog as templates.json)."""
    missing = [tool for tool in ("bash", "curl", "jq") if shutil.which(tool) is None]
    if missing and not os.environ.get("REQUIRE_BROWSER"):  # CI installs them with the browser
        pytest.skip(f"{missing} missing: make test installs them when run as root")
    with socket_app.app_context():
        users.set_password("admin", "change-me-now")
    clean = {"PATH": os.environ["PATH"], "HOME": str(tmp_path)}
    curl_tour = tours.script("A tour with curl").replace("http://127.0.0.1:8000", bpctl.url)
    done = subprocess.run(
        [shutil.which("bash"), "-c", "set -euo pipefail\n" + curl_tour],
        cwd=tmp_path,
        env=clean,
        capture_output=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr.decode()
    script = tours.script("A tour with bpctl")
    assert script.startswith("export BPCTL_URL=") and script.count("\n") >= 15
    portainer = corpus.folder() / "portainer"
    # the clones of Portainer's and Dokploy's catalogs are the corpus's copies of them
    clone = (
        'git() { to="${@: -1}"; case "$*" in\n'
        f'  *portainer*) cp -r "{portainer / "portainer-templates"}" "$to"'
        f' && ln -s "{portainer / "portainer-templates-v3.json"}" "$to/templates.json";;\n'
        f'  *) mkdir -p "$to" && ln -s "{corpus.folder() / "dokploy"}" "$to/blueprints";;\n'
        "esac; }\n"
    )
    prelude = (
        f'set -euo pipefail\ndocker() {{ shift; "{compose_oracle.binary()}" "$@"; }}\nPATH="{PROGRAM.parent}:$PATH"\n'
        + clone
    )
    environ = {**clean, "BPCTL_PASSWORD": "change-me-now", "XDG_CONFIG_HOME": str(tmp_path / "config")}
    script = script.replace("export BPCTL_URL=http://127.0.0.1:8000 ", f"export BPCTL_URL={bpctl.url} ")
    done = subprocess.run(
        [shutil.which("bash"), "-c", prelude + script], cwd=tmp_path, env=environ, capture_output=True, timeout=120
    )
    out, err = done.stdout.decode(), done.stderr.decode()
    assert done.returncode == 0, err
    assert "needs:       2 containers, 512Mi memory, 0.5 cpu" in out
    assert "\nfits\n" in out and "REPLICAS=8: the most that fits" in err
    assert "replicas: 8\n" in (tmp_path / "web-8.yml").read_text()
    assert "68 created, 1 skipped" in err and "revoked" in err, err
    assert "memory: 1 declaring none took the profile's default (256Mi each): registry." in out  # Portainer's
    assert "shop: admitted" in err and "memory      512Mi  2Gi  1.5Gi" in out  # the deploy, then the usage
    assert "-      replicas: 2\n+      replicas: 3\n" in err and "replicas: 3\n" in (tmp_path / "shop.yml").read_text()
    assert "kind: LimitRange" in (tmp_path / "quota.yaml").read_text()
    assert "stats: admitted" in err and {"ackee", "mongo"} <= set(out.splitlines())  # Dokploy's Ackee
    assert "stats: answers on https://stats.pay.example.com -> ackee:3000\n" in err  # no domain typed
    assert "would be: 1 upgraded" in err and "+    image: nginx:1.28\n" in err and "\n1 upgraded\n" in err
    assert re.search(r"shop: release 4 restores release 2 \(revision \d+\)", err)  # deploy, upgrade x2, rollback
    assert "sources are off until SOURCE_HOSTS names hosts" in err  # the operator's to allow
    shop = next(line.split() for line in out.splitlines() if line.startswith("shop ") and " compose " in line)
    assert [shop[0], *shop[2:5]] == ["shop", "compose", "web", "cli-team"]  # names, not ids
    assert "web: created, revision 1" in out and "web: updated, revision 2" in out  # the curl tour's is curl-web
    assert "owner admin, entitlement PUBLIC: everyone reads them; each is also named dokploy:KEY." in err
    assert re.search(r"\nadmin\s+maintainer\s+manual\n", out) and re.search(
        r"\npay-web\s+[0-9a-f]{24}\s+pay\s+2\s", out
    )


def test_a_profile_holds_a_pod_security_level_and_an_instance_its_namespace(bpctl):
    assert bpctl("profile", "create", "open", "--pod-security", "privileged", **ALICE).code == 3  # admins only
    assert bpctl("profile", "create", "strict", "--pod-security", "restricted", "-o", "json", **ALICE).code == 0
    shown = json.loads(bpctl("profile", "get", "strict", "-o", "json", **ALICE).out)
    assert shown["podSecurity"] == "restricted" and shown["allowKinds"] == []
    assert bpctl("profile", "change", "strict", "--allow-kind", "apps/DaemonSet", **ALICE).code == 3
    web = "services:\n  web:\n    image: nginx:1.27\n"
    assert bpctl("push", "-", "--name", "plain", "--type", "compose", input=web, **ALICE).code == 0
    deployed = bpctl(
        "deploy", "plain", "shop", "--profile", "strict", "--target", "kubernetes", "--namespace", "team-shop", **ALICE
    )
    assert deployed.code == 0, deployed.err
    objects = list(yaml.safe_load_all(deployed.out))
    assert objects[0]["metadata"] == {
        "name": "team-shop",
        "labels": {
            "app.kubernetes.io/instance": "team-shop",
            "pod-security.kubernetes.io/enforce": "restricted",
            "pod-security.kubernetes.io/enforce-version": "v1.37",
        },
    }
    assert bpctl("deploy", "plain", "other", "--profile", "strict", "--namespace", "x", **ALICE).code == 2


def test_get_says_which_service_answers_where(bpctl, tmp_path):
    (tmp_path / "shop.yml").write_text(
        "services:\n  web: {image: nginx}\n  api: {image: nginx}\n"
        "x-routes:\n  - {service: web, port: 80, host: shop.example.com}\n"
        "  - {service: api, port: 8080, path: /api, tls: false}\n"
    )
    assert bpctl("push", str(tmp_path / "shop.yml"), **ALICE).code == 0
    out = bpctl("get", "shop", **ALICE).out
    assert "https://shop.example.com -> web:80" in out and "http://(any host)/api -> api:8080" in out


def test_upgrade_behind_brings_every_instance_up_to_date_and_a_rollback_restores_a_release(bpctl, web):
    for name in ("shop", "blog"):
        assert bpctl("deploy", "web", name, "--profile", "team", "--set", "REPLICAS=1", **ALICE).code == 0
    assert bpctl("upgrade", "shop", "--set", "REPLICAS=2", **ALICE).code == 0  # release 2 of shop
    changed = bpctl.api.patch(
        f"/blueprints/{web['id']}", json={"yml": WEB.replace("nginx:", "nginx-new:")}, user="alice"
    )
    assert changed.status == 200
    assert bpctl("upgrade", **ALICE).code == 2  # neither an instance nor a selection
    tried = bpctl("upgrade", "--behind", "--dry-run", **ALICE)
    assert tried.code == 0 and "would be: 2 upgraded" in tried.err and "+    image: nginx-new:1.27" in tried.err
    rows = [line.split()[:4] for line in tried.out.splitlines()[1:]]
    assert rows == [["shop", "1", "2", "would"], ["blog", "1", "2", "would"]]
    assert bpctl.api.get("/instances?behind=true", user="alice").json["items"] != []  # nothing written
    done = bpctl("upgrade", "--behind", "--blueprint", "web", "-o", "json", **ALICE)
    assert done.code == 0 and [one["outcome"] for one in json.loads(done.out)["results"]] == ["upgraded"] * 2
    assert bpctl.api.get("/instances?behind=true", user="alice").json["items"] == []
    listed = bpctl("releases", "shop", **ALICE).out.splitlines()
    assert listed[0].split() == ["RELEASE", "REV", "AT", "BY", "VALUES"]
    assert [line.split()[0] for line in listed[1:]] == ["3", "2", "1"] and "(current)" in listed[1]
    back = bpctl("rollback", "shop", "1", **ALICE)
    assert back.code == 0 and "release 4 restores release 1 (revision 1)" in back.err
    [shop] = bpctl.api.get("/instances?name=shop", user="alice").json["items"]
    assert shop["rev"] == 1 and shop["values"]["REPLICAS"] == 1  # the value release 1 had, not the upgrade's
    assert bpctl("rollback", "shop", **ALICE).code == 0  # the release before the current: 3
    assert bpctl.api.get(f"/instances/{shop['id']}", user="alice").json["values"]["REPLICAS"] == 2
