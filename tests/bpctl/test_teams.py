"""A team's day in bpctl, each command the installed program in a process of its own: what it
creates for a team, names resolved among everything the caller may act on (by name, SOURCE:KEY or
--id), a name several share answered with a table, and every field of a profile set and shown.

`pay` is maintained by alice; bob is its member, carol its viewer, dave in no team."""

import json
import re
import subprocess

import pytest

from app.blueprints.storage import Blueprints
from support import compose_oracle
from support.apps import serving
from support.bpctl import Bpctl
from support.environments import SOCKET, docker
from support.http import PASSWORD, SocketClient

WEB = "services:\n  web:\n    image: nginx:1.27\n    mem_limit: 64m\n    cpus: 0.1\n"
AS = {name: {"BPCTL_USERNAME": name, "BPCTL_PASSWORD": PASSWORD} for name in ("admin", "alice", "bob", "carol", "dave")}


@pytest.fixture
def bpctl(socket_app, tmp_path):
    with serving(socket_app) as port:
        client = Bpctl(f"http://127.0.0.1:{port}", tmp_path / "config")
        api = client.api = SocketClient(port)
        assert (
            api.post("/users", json={"username": "dave", "password": PASSWORD, "role": "member"}, user="admin").status
            == 201
        )
        assert api.post("/teams", json={"name": "pay"}, user="admin").status == 201
        for username, role in (("alice", "maintainer"), ("bob", "member"), ("carol", "viewer")):
            assert api.put(f"/teams/pay/members/{username}", json={"role": role}, user="admin").status == 200
        yield client


def ok(done):
    assert done.code == 0, done.err
    return done


def test_what_a_member_creates_for_the_team_every_member_names_and_acts_on(bpctl, tmp_path):
    (tmp_path / "web.yml").write_text(WEB)
    made = json.loads(
        ok(
            bpctl("profile", "create", "budget", "--owner", "team:pay", "--memory", "1Gi", "-o", "json", **AS["bob"])
        ).out
    )
    assert made["owner"] == "team:pay"
    ok(bpctl("push", str(tmp_path / "web.yml"), "--owner", "team:pay", **AS["bob"]))
    deployed = bpctl("deploy", "web", "pay-web", "--profile", "budget", "--owner", "team:pay", **AS["bob"])
    assert ok(deployed).out.startswith("services:") and "pay-web: admitted" in deployed.err
    # alice, the maintainer, names what bob made for the team: the team's, hers to act on
    shown = json.loads(ok(bpctl("instance", "get", "pay-web", "-o", "json", **AS["alice"])).out)
    assert shown["owner"] == "team:pay" and shown["can"]["change"]
    (tmp_path / "web.yml").write_text(WEB.replace("1.27", "1.28"))
    assert (
        "web: updated, revision 2"
        in ok(bpctl("push", str(tmp_path / "web.yml"), "--owner", "team:pay", **AS["alice"])).out
    )
    assert "+    image: nginx:1.28" in ok(bpctl("upgrade", "pay-web", **AS["alice"])).err
    listed = ok(bpctl("instances", **AS["alice"])).out.splitlines()
    assert listed[0].split()[-2:] == ["OWNER", "SOURCE"] and listed[1].split()[-2:] == ["team:pay", "-"]
    # carol, a viewer, reads it and may not change it; dave reads none of it
    refused = bpctl("upgrade", "pay-web", **AS["carol"])
    assert refused.code == 3 and "403" in refused.err and refused.out == ""
    assert bpctl("instance", "get", "pay-web", **AS["dave"]).code == 3
    assert bpctl("push", str(tmp_path / "web.yml"), "--owner", "team:pay", **AS["dave"]).code == 3
    team = ok(bpctl("team", "show", "pay", **AS["bob"])).out
    assert re.search(r"\nalice\s+maintainer\s+manual\n", team) and re.search(r"\ncarol\s+viewer\s+manual\n", team)
    assert re.search(rf"\nbudget\s+{made['id']}\s+-\s+-\n", team) and re.search(
        r"\npay-web\s+[0-9a-f]{24}\s+budget\s+2\s", team
    )
    assert team.endswith("pay: not priced (the operator set no PRICES)\n")
    ok(bpctl("undeploy", "--id", shown["id"], **AS["bob"]))
    assert bpctl("instance", "get", "pay-web", **AS["alice"]).code == 3


def test_a_team_owned_instance_is_named_by_all_its_members_and_by_its_id(bpctl):
    """Made with curl, as the issue found it: every member names it; a name two owners share is a
    table of both, and --id or the caller's own resolves it."""
    api = bpctl.api
    budget = api.post("/profiles", json={"name": "budget", "owner": "team:pay", "memoryCap": "1Gi"}, user="alice").json
    blueprint = api.post(
        "/blueprints", json={"name": "web", "blueprintType": "compose", "yml": WEB, "owner": "team:pay"}, user="alice"
    ).json
    made = api.post(
        "/instances",
        json={"name": "stats", "blueprint": blueprint["id"], "profile": budget["id"], "owner": "team:pay"},
        user="alice",
    ).json
    for user in ("alice", "bob", "carol"):
        assert json.loads(ok(bpctl("instance", "get", "stats", "-o", "json", **AS[user])).out)["id"] == made["id"]
    own = api.post("/profiles", json={"name": "mine", "memoryCap": "1Gi", "entitledTeams": ["pay"]}, user="bob").json
    bobs = api.post(
        "/instances", json={"name": "stats", "blueprint": blueprint["id"], "profile": own["id"]}, user="bob"
    ).json
    assert json.loads(ok(bpctl("instance", "get", "stats", "-o", "json", **AS["alice"])).out)["id"] == made["id"]
    assert bpctl("instance", "get", "stats", **AS["bob"]).code == 2  # his own and his team's: both his to change
    both = bpctl("instance", "get", "stats", **AS["admin"])  # an admin may change both: which?
    assert both.code == 2 and both.out == "" and "2 instances are named 'stats'" in both.err
    assert re.search(rf"{made['id']}\s+stats\s+team:pay", both.err) and re.search(
        rf"{bobs['id']}\s+stats\s+bob", both.err
    )
    assert (
        json.loads(ok(bpctl("instance", "get", "--id", bobs["id"], "-o", "json", **AS["admin"])).out)["owner"] == "bob"
    )
    assert bpctl("instance", "get", "--id", "0" * 24, **AS["admin"]).code == 3


def test_an_import_for_a_team_is_named_by_source_and_key_and_says_whose_it_is(bpctl, tmp_path):
    catalog = {
        "version": "3",
        "templates": [
            {"id": 1, "type": 1, "title": "Ackee", "image": "electerious/ackee"},
            {"id": 2, "type": 1, "title": "Cache", "image": "redis:7"},
        ],
    }
    (tmp_path / "one.json").write_text(json.dumps(catalog))
    (tmp_path / "two.json").write_text(json.dumps({"version": "3", "templates": catalog["templates"][:1]}))
    done = ok(
        bpctl(
            "import",
            str(tmp_path / "one.json"),
            "--format",
            "portainer",
            "--owner",
            "team:pay",
            "--entitlement",
            "team",
            "--entitled-team",
            "pay",
            **AS["bob"],
        )
    )
    assert "owner team:pay, entitlement TEAM: the teams pay use them; each is also named one.json:KEY." in done.err
    done = ok(
        bpctl("import", str(tmp_path / "two.json"), "--format", "portainer", "--entitlement", "public", **AS["admin"])
    )
    assert "owner admin, entitlement PUBLIC: everyone reads them" in done.err
    ackee = bpctl("get", "Ackee", **AS["carol"])  # two catalogs' Ackee, neither carol's to change
    assert ackee.code == 2 and "SOURCE:KEY" in ackee.err and "one.json:1" in ackee.err and "two.json:1" in ackee.err
    picked = json.loads(ok(bpctl("get", "two.json:1", "-o", "json", **AS["carol"])).out)
    assert (picked["owner"], picked["entitlementType"]) == ("admin", "PUBLIC")
    assert json.loads(ok(bpctl("get", "Ackee", "-o", "json", **AS["bob"])).out)["owner"] == "team:pay"  # his team's
    listed = ok(bpctl("ls", "--name", "Ackee", **AS["carol"])).out
    assert "team:pay  one.json:1" in listed and "admin     two.json:1" in listed
    assert "did you mean 'Cache' (one.json:2)?" in bpctl("get", "2", **AS["bob"]).err
    assert bpctl("get", "one.json:2", **AS["dave"]).code == 3  # the team's alone
    rendered = bpctl.run("render", "two.json:1", **AS["dave"])
    services = subprocess.run(
        [compose_oracle.binary(), "-f", "-", "config", "--services"], input=rendered.stdout, capture_output=True
    )
    assert rendered.returncode == 0 and services.stdout.split() == [b"ackee"]


def test_every_writable_field_of_a_profile_is_set_by_options_and_shown(bpctl, socket_app):
    socket_app.config.update(PRICES="cpu=20,memoryGiB=5,currency=EUR", ENVIRONMENT_SOCKETS=(SOCKET,))
    assert bpctl.api.post("/environments", json=docker(), user="admin").status == 201
    options = (
        "--domain",
        "apps.example.com",
        "--ingress-class",
        "nginx",
        "--tls-issuer",
        "letsencrypt",
        "--storage-class",
        "fast",
        "--gateway",
        "infra/edge",
        "--image-pull-secret",
        "registry",
        "--price-cpu",
        "25",
        "--price-memory",
        "4.5",
        "--share-team",
        "pay",
        "--environment",
        "shared-docker",
        "--headroom-pods",
        "1",
        "--headroom-memory",
        "64Mi",
        "--proxy-entrypoint",
        "websecure",
        "--no-proxy-publish",
    )
    made = json.loads(ok(bpctl("profile", "create", "edge", "--cpu", "2", *options, "-o", "json", **AS["admin"])).out)
    assert made["cluster"] == {
        "domain": "apps.example.com",
        "ingressClass": "nginx",
        "tlsIssuer": "letsencrypt",
        "storageClass": "fast",
        "gateway": "infra/edge",
        "imagePullSecrets": ["registry"],
        "headroom": {"pods": 1, "memory": "64Mi", "cpu": None},
        "proxy": {"entrypoints": ["websecure"], "certResolver": None, "publish": False},
    }
    assert made["prices"] == {"cpu": 25.0, "memoryGiB": 4.5} and made["entitledTeams"] == ["pay"]
    assert made["environments"] == ["shared-docker"]
    changed = json.loads(
        ok(
            bpctl(
                "profile",
                "change",
                "edge",
                "--domain",
                "pay.example.com",
                "--price-storage",
                "1",
                "--headroom-cpu",
                "50m",
                "--proxy-cert-resolver",
                "le",
                "-o",
                "json",
                **AS["admin"],
            )
        ).out
    )
    headroom = {"pods": 1, "memory": "64Mi", "cpu": "50m"}
    proxy = {"entrypoints": ["websecure"], "certResolver": "le", "publish": False}
    assert changed["cluster"] == {**made["cluster"], "domain": "pay.example.com", "headroom": headroom, "proxy": proxy}
    assert changed["prices"] == {"cpu": 25.0, "memoryGiB": 4.5, "storageGiB": 1.0}
    shown = ok(bpctl("profile", "get", "edge", **AS["bob"])).out  # shared with his team
    for line in (
        "domain:            pay.example.com",
        "gateway:           infra/edge",
        "pull secrets:      registry",
        "headroom:          1 pods, 64Mi, 50m",
        "proxy:             websecure, resolver le, routed ports unpublished",
        "price cpu:         25.0",
        "shared with teams: pay",
        "environments:      shared-docker",
        "monthly:           0.00 EUR",
    ):
        assert line + "\n" in shown
    assert bpctl("profile", "change", "edge", "--gateway", "no-slash", **AS["admin"]).code == 3
    assert bpctl("profile", "create", "x", "--owner", "team:pay", **AS["carol"]).code == 3  # a viewer of the team


def test_sources_are_named_by_their_url_and_a_name_or_an_id_is_asked_for_once(bpctl):
    assert bpctl("source", "sync", **AS["alice"]).code == 2
    assert bpctl("source", "rm", "https://git.example.com/none.git", **AS["alice"]).code == 3
    done = bpctl("deploy", "--id", "0" * 24, **AS["alice"])  # --id, but no NAME for the instance
    assert done.code == 2 and "NAME" in done.err


def test_a_push_to_a_name_two_imports_made_asks_which_and_takes_an_id(bpctl, tmp_path):
    catalog = {"version": "3", "templates": [{"id": 1, "type": 1, "title": "Ackee", "image": "electerious/ackee"}]}
    for source in ("one", "two"):
        (tmp_path / f"{source}.json").write_text(json.dumps(catalog))
        ok(bpctl("import", str(tmp_path / f"{source}.json"), "--format", "portainer", **AS["alice"]))
    (tmp_path / "ackee.yml").write_text("services:\n  ackee:\n    image: electerious/ackee:3\n")
    asked = bpctl("push", str(tmp_path / "ackee.yml"), "--name", "Ackee", **AS["alice"])
    assert asked.code == 2 and "--id ID" in asked.err and "one.json:1" in asked.err and "two.json:1" in asked.err
    chosen = json.loads(ok(bpctl("get", "two.json:1", "-o", "json", **AS["alice"])).out)
    pushed = ok(bpctl("push", str(tmp_path / "ackee.yml"), "--id", chosen["id"], **AS["alice"]))
    assert pushed.out == f"Ackee: updated, revision 2 ({chosen['id']})\n"


def test_which_of_a_shared_name_bpctl_takes_is_the_services_can_not_a_rule_of_its_own(bpctl, tmp_path, monkeypatch):
    """`can` turned around (bob's blueprint is everyone's to change, alice's nobody's): alice's
    `get web` takes bob's, as the service says, where a rule of bpctl's would take her own."""
    api = bpctl.api
    mine = api.post("/blueprints", json={"name": "web", "yml": WEB, "blueprintType": "compose"}, user="alice").json
    bobs = api.post("/blueprints", json={"name": "web", "entitlementType": "PUBLIC"}, user="bob").json
    assert json.loads(ok(bpctl("get", "web", "-o", "json", **AS["alice"])).out)["id"] == mine["id"]
    monkeypatch.setattr(
        Blueprints, "can", lambda self, doc, user: dict.fromkeys(("change", "delete", "deploy"), doc["owner"] == "bob")
    )
    assert json.loads(ok(bpctl("get", "web", "-o", "json", **AS["alice"])).out)["id"] == bobs["id"]
