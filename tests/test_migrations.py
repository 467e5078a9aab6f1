"""Documents an earlier version stored: brought to the present shape once, at start-up, with
progress in the log; after that, reads take them as they are."""

import logging
import subprocess
import sys

from bson import ObjectId

from app import create_app, migrations, state
from app.blueprints.storage import store as blueprint_store
from app.storage import ids
from app.storage.database import get_db, now
from support.http import assert_problem, create
from support.lists import walk
from support.processes import ROOT, Gunicorn, environment

COMPOSE = "services:\n  web:\n    image: nginx\n    deploy:\n      resources:\n        limits: {memory: 256m}\n"


def _earlier(app, blueprints, profiles=()):
    """Write documents as an earlier version stored them (no keys, no `updatedBy`, no
    `requirements` or ones without `perContainer`; profiles without usage, defaults or
    sharing) and forget the migrations; their ids."""
    made = []
    with app.app_context():
        db = get_db()
        for collection, docs in (("blueprints", blueprints), ("profiles", profiles)):
            for fields in docs:
                moment = now()
                doc = {
                    "_id": ids.new_id(moment),
                    "owner": "alice",
                    "createdAt": moment,
                    "updatedAt": moment,
                    "rev": 1,
                    **fields,
                }
                db[collection].insert_one(doc)
                made.append(str(doc["_id"]))
        db.settings.delete_one({"_id": migrations.MIGRATED})
    return made


def _restarted(app):
    return create_app(dict(app.config), mongo_client=state.of(app).database.client)


def _blueprint(name, **fields):
    return {
        "name": name,
        "blueprintType": "compose",
        "yml": COMPOSE,
        "entitlementType": "PUBLIC",
        "entitledUsers": [],
        "inactive": False,
        "parameters": None,
        **fields,
    }


def test_an_earlier_database_is_migrated_at_start_up_and_read_as_it_is_after(app, api, caplog):
    before_requirements, before_containers, never_checked, profile = _earlier(
        app,
        [
            _blueprint("old web"),
            _blueprint("old sized", updatedBy="bob", requirements={"memoryBytes": 1, "containers": 1}),
            _blueprint("old broken", yml="services: [web\n"),
        ],
        [{"name": "old team", "memoryCap": "1Gi", "defaultProfile": False}],
    )
    with caplog.at_level(logging.INFO, logger="app.migrations"):
        restarted = _restarted(app)
    assert "migrating blueprints: 3 examined, 3 changed" in caplog.text
    assert "migrating profiles: 1 examined, 1 changed" in caplog.text
    with restarted.app_context():
        assert migrations.done(get_db()) == migrations.LATEST
        assert get_db().blueprints.find_one({"keys": None}) is None

    found = {item["name"]: item for item in walk(api, "/blueprints?q=old&limit=2", user="bob")}
    assert sorted(found) == ["old broken", "old sized", "old web"]
    assert found["old web"]["updatedBy"] == "alice" and found["old sized"]["updatedBy"] == "bob"
    assert found["old web"]["requirements"]["memoryBytes"] == 256 * 2**20
    assert found["old sized"]["requirements"]["memoryBytes"] == 256 * 2**20  # measured again, container by container
    assert found["old broken"]["requirements"] is None  # stored before definitions were checked
    assert api.get(f"/blueprints/{before_requirements}/fit?profile={profile}", user="alice").json["fits"] is True
    r = api.get(f"/profiles/{profile}", user="alice")
    assert r.json["usage"]["instances"] == 0 and r.json["entitledUsers"] == [] and r.json["containerDefaults"] is None
    assert (r.json["owner"], r.json["entitledTeams"]) == ("alice", [])  # stored before teams: the same meaning
    assert (found["old web"]["owner"], found["old web"]["entitledTeams"]) == ("alice", [])
    assert [item["name"] for item in walk(api, "/profiles?limit=1", user="alice")] == ["old team"]
    assert api.get(f"/blueprints/{never_checked}", user="alice").status == 200
    assert api.get(f"/blueprints/{before_containers}", user="alice").json["name"] == "old sized"


def test_a_database_already_migrated_is_not_walked_again(app, caplog):
    with app.app_context():
        assert migrations.done(get_db()) == migrations.LATEST
        moment = now()
        get_db().blueprints.insert_one({"_id": ids.new_id(moment), **_blueprint("left"), "rev": 1})
    with caplog.at_level(logging.INFO, logger="app.migrations"):
        restarted = _restarted(app)
    assert "migrating" not in caplog.text
    with restarted.app_context():
        assert "keys" not in get_db().blueprints.find_one({"name": "left"})


def test_a_profiles_usage_and_ledger_move_to_a_document_of_their_own_once(app, api):
    """As the previous version kept them, on the profile; a walk that stops half-way and runs again
    (a crash) keeps what it moved: a profile already moved is not emptied."""
    held = {"memoryBytes": 3 * 2**20, "cpuMillis": 30, "containers": 3, "storageBytes": 0, "instances": 3}
    entry = {"op": "create", "delta": held, "pending": {}, "at": now()}
    moved, bare = _earlier(
        app,
        [],
        [
            {"name": "counted", "memoryCap": "1Gi", "usage": held, "ledger": {str(ObjectId()): entry}},
            {"name": "older still", "memoryCap": "1Gi", "owner": "bob"},  # mongomock: one per owner
        ],
    )
    _restarted(app)
    with app.app_context():
        db = get_db()
        db.settings.delete_one({"_id": migrations.MIGRATED})  # as if the walk died before recording it
        _restarted(app)
        stored = db.profiles.find_one({"_id": ObjectId(moved)})
        kept = db.ledgers.find_one({"_id": ObjectId(moved)})
    assert "usage" not in stored and "ledger" not in stored
    assert kept["usage"] == held and list(kept["ledger"].values())[0]["delta"] == held
    unpriced = {"monthly": None, "currency": None, "observed": None}
    assert api.get(f"/profiles/{moved}", user="alice").json["usage"] == {**held, **unpriced}
    assert api.get(f"/profiles/{bare}", user="bob").json["usage"]["instances"] == 0


def test_a_document_changed_meanwhile_is_migrated_from_its_new_version(app):
    (made,) = _earlier(app, [_blueprint("raced")])
    with app.app_context():
        coll = get_db().blueprints
        read = coll.find_one({"name": "raced"})
        coll.update_one({"name": "raced"}, {"$set": {"name": "renamed", "rev": 2}})  # an earlier version's write
        store = blueprint_store
        assert migrations._migrated(store, _of(store), read)
        stored = coll.find_one({"name": "renamed"})
    assert stored["rev"] == 2 and stored["updatedBy"] == "alice" and "n:renamed" in "".join(stored["keys"])
    assert str(stored["_id"]) == made


def test_flask_migrate_says_where_the_database_is(socket_app):
    """The command runs the app's start-up (which migrates), then says so."""
    _earlier(socket_app, [_blueprint("by command")])
    result = subprocess.run(
        [sys.executable, "-m", "flask", "--app", "wsgi", "migrate"],
        cwd=ROOT,
        env=environment(MONGO_URI=_uri(socket_app), MONGO_DB=socket_app.config["MONGO_DB"]),
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == f"the database is at migration {migrations.LATEST} of {migrations.LATEST}"
    with socket_app.app_context():
        assert get_db().blueprints.find_one({"name": "by command"})["keys"]


def _uri(app):
    address = state.of(app).database.client.address
    return f"mongodb://{address[0]}:{address[1]}"


def test_gunicorn_migrates_before_its_workers_start(socket_app, tmp_path):
    """The master runs what is pending before it forks, so a worker's start-up finds nothing to do."""
    (made,) = _earlier(socket_app, [_blueprint("waiting")])
    log = tmp_path / "gunicorn.log"
    with log.open("w") as stderr:
        service = Gunicorn(
            stderr=stderr, MONGO_URI=_uri(socket_app), MONGO_DB=socket_app.config["MONGO_DB"], LOG_LEVEL="info"
        ).start()
        try:
            with socket_app.app_context():
                stored = get_db().blueprints.find_one({"name": "waiting"})
        finally:
            service.stop()
    lines = [line for line in log.read_text().splitlines() if "migrat" in line]
    assert any("migrating blueprints: 1 examined, 1 changed" in line for line in lines), lines
    assert len([line for line in lines if "migrating blueprints:" in line]) == 1  # the master's alone
    assert stored["keys"] and stored["updatedBy"] == "alice" and str(stored["_id"]) == made


def test_documents_already_keyed_are_not_written_again_nor_a_star_made_meanwhile_lost(app, api, caplog):
    """The walk reads each document whole, its keys too: keys that are right stay as they are, and
    a star given between the walk's read and its write (which changes the keys, not the `rev`)
    is kept."""
    api.post("/blueprints", json={"name": "keyed", "entitlementType": "PUBLIC"}, user="alice")
    (old,) = _earlier(app, [_blueprint("old")])
    with app.app_context():
        store = blueprint_store
        read = store.coll().find_one({"name": "old"})
    assert api.put(f"/blueprints/{old}/star", user="bob").status == 204  # after the walk read it
    with app.app_context():
        assert migrations._migrated(store, _of(store), read)
    assert [item["id"] for item in walk(api, "/blueprints?starred=true", user="bob")] == [old]
    with caplog.at_level(logging.INFO, logger="app.migrations"):
        _restarted(app)
    assert "migrating blueprints: 2 examined, 0 changed" in caplog.text


def _of(store):
    return [migration for migration in migrations.MIGRATIONS if store in migration.stores]


def test_an_instance_stored_showing_a_generated_value_hides_it_after_the_migration(app, api):
    parameters = {
        "type": "object",
        "properties": {
            "PASSWORD": {"type": "string", "x-generate": "[a-z]{24}"},
            "TAG": {"type": "string", "default": "1"},
        },
    }
    yml = COMPOSE.replace("image: nginx", "image: nginx:${TAG}\n    environment: {P: '${PASSWORD}'}")
    blueprint = create(api, "blueprints", name="db", yml=yml, blueprintType="compose", parameters=parameters).json
    profile = create(api, "profiles", name="team").json
    made = api.post(
        "/instances", json={"name": "db", "blueprint": blueprint["id"], "profile": profile["id"]}, user="alice"
    ).json
    with app.app_context():
        stored = get_db().instances.find_one({"_id": ObjectId(made["id"])})
        earlier = {**stored["values"], "PASSWORD": stored["kept"]["PASSWORD"]}  # as shown before it was a secret
        get_db().instances.update_one({"_id": stored["_id"]}, {"$set": {"values": earlier}})
        get_db().settings.update_one({"_id": migrations.MIGRATED}, {"$set": {"value": 4}})
    _restarted(app)
    assert api.get(f"/instances/{made['id']}", user="alice").json["values"] == {"PASSWORD": None, "TAG": "1"}
    assert stored["kept"]["PASSWORD"] in api.get(f"/instances/{made['id']}/yml", user="alice").body.decode()


def test_an_instance_stored_before_targets_is_what_its_blueprint_renders_for(app, api):
    blueprint = create(api, "blueprints", name="web", yml=COMPOSE, blueprintType="compose").json
    profile = create(api, "profiles", name="team").json
    made = api.post(
        "/instances", json={"name": "web", "blueprint": blueprint["id"], "profile": profile["id"]}, user="alice"
    ).json
    assert made["target"] == "compose"
    with app.app_context():
        get_db().instances.update_one({"_id": ObjectId(made["id"])}, {"$unset": {"target": ""}})
        get_db().settings.update_one({"_id": migrations.MIGRATED}, {"$set": {"value": 6}})
    _restarted(app)
    assert api.get(f"/instances/{made['id']}", user="alice").json["target"] == "compose"


def test_profiles_that_existed_keep_admitting_what_they_admitted_and_blueprints_get_their_findings(app, api):
    host = "services:\n  web:\n    image: x\n    privileged: true\n    volumes: ['/:/host']\n"
    blueprint = create(api, "blueprints", name="host", yml=host, blueprintType="compose").json
    profile = create(api, "profiles", name="team").json
    assert profile["podSecurity"] == "baseline"
    with app.app_context():
        get_db().profiles.update_one(
            {"_id": ObjectId(profile["id"])}, {"$unset": {"podSecurity": "", "allowKinds": ""}}
        )
        get_db().blueprints.update_one({"_id": ObjectId(blueprint["id"])}, {"$unset": {"requirements.podSecurity": ""}})
        get_db().settings.update_one({"_id": migrations.MIGRATED}, {"$set": {"value": 7}})
    _restarted(app)
    migrated = api.get(f"/profiles/{profile['id']}", user="alice").json
    assert migrated["podSecurity"] == "privileged" and migrated["allowKinds"] == []
    body = {"name": "host", "blueprint": blueprint["id"], "profile": profile["id"]}
    assert api.post("/instances", json=body, user="alice").status == 201  # as it was before levels
    strict = create(api, "profiles", name="strict").json
    fit = api.get(f"/blueprints/{blueprint['id']}/fit?profile={strict['id']}", user="alice").json
    assert [one["control"] for one in fit["podSecurity"]["violations"]] == ["Privileged Containers", "HostPath Volumes"]


def test_an_instance_on_kubernetes_holds_the_namespace_it_was_rendered_into(app, api):
    """Two owners' instances named `shop` (names were unique per owner): the newer, which the
    migration meets first, holds it; the other keeps its rendering and holds none."""
    blueprint = create(
        api, "blueprints", name="web", yml=COMPOSE, blueprintType="compose", entitlementType="PUBLIC"
    ).json
    profiles = {user: create(api, "profiles", name="team", user=user).json for user in ("alice", "bob")}
    made = {
        user: api.post(
            "/instances",
            json={
                "name": f"{user}-web",
                "blueprint": blueprint["id"],
                "profile": profiles[user]["id"],
                "target": "kubernetes",
            },
            user=user,
        ).json
        for user in ("alice", "bob")
    }
    with app.app_context():  # as stored before: no namespace held
        for one in made.values():
            get_db().instances.update_one(
                {"_id": ObjectId(one["id"])}, {"$unset": {"namespace": ""}, "$set": {"name": "shop"}}
            )
        get_db().namespaces.delete_many({})
        get_db().settings.update_one({"_id": migrations.MIGRATED}, {"$set": {"value": 8}})
    before = api.get(f"/instances/{made['alice']['id']}/yml", user="alice").body
    _restarted(app)
    held = {user: api.get(f"/instances/{one['id']}", user=user).json["namespace"] for user, one in made.items()}
    assert held == {"alice": None, "bob": "shop"}
    assert api.get(f"/instances/{made['alice']['id']}/yml", user="alice").body == before
    taken = {"name": "later", "blueprint": blueprint["id"], "profile": profiles["alice"]["id"], "target": "kubernetes"}
    assert api.post("/instances", json={**taken, "namespace": "shop"}, user="alice").status == 409


def test_a_blueprint_stored_before_claims_counts_them_on_a_cluster_after_the_migration(app, api):
    volumes = COMPOSE + "    volumes: [data:/data, logs:/logs]\nvolumes: {data: {}, logs: {}}\n"
    blueprint = create(api, "blueprints", name="kept", yml=volumes, blueprintType="compose").json
    with app.app_context():
        get_db().blueprints.update_one({"_id": ObjectId(blueprint["id"])}, {"$unset": {"requirements.claims": ""}})
        get_db().settings.update_one({"_id": migrations.MIGRATED}, {"$set": {"value": 9}})
    _restarted(app)
    team = create(api, "profiles", name="team", storageCap="10Gi").json
    fit = api.get(f"/blueprints/{blueprint['id']}/fit?target=kubernetes&profile={team['id']}", user="alice").json
    assert fit["resources"]["storage"]["required"] == 2 * 2**30


def test_an_instance_on_kubernetes_stored_before_holds_the_hosts_its_stream_routes(app, api):
    """Kubernetes instances held no host; Traefik rules were read by their first Host()."""
    routed = COMPOSE + "x-routes:\n  - {service: web, port: 80, host: shop.example.com}\n"
    blueprint = create(api, "blueprints", name="web", yml=routed, blueprintType="compose", entitlementType="PUBLIC")
    profile = create(api, "profiles", name="team").json
    body = {"name": "shop", "blueprint": blueprint.json["id"], "profile": profile["id"], "target": "kubernetes"}
    shop = api.post("/instances", json=body, user="alice").json
    labelled = COMPOSE + "    labels: ['traefik.http.routers.r.rule=Host(`a.example.com`) || Host(`b.example.com`)']\n"
    rule = create(api, "blueprints", name="rule", yml=labelled, blueprintType="compose").json
    with app.app_context():  # as stored before: no hold, the rule's first host alone
        get_db().instances.update_one({"_id": ObjectId(shop["id"])}, {"$set": {"hosts": []}})
        get_db().hosts.delete_many({})
        first_only = {"service": "web", "port": 80, "host": "a.example.com", "path": "/", "tls": False, "router": "r"}
        get_db().blueprints.update_one({"_id": ObjectId(rule["id"])}, {"$set": {"requirements.routes": [first_only]}})
        get_db().settings.update_one({"_id": migrations.MIGRATED}, {"$set": {"value": 10}})
    _restarted(app)
    theirs = create(api, "profiles", name="theirs", user="bob").json
    again = {**body, "profile": theirs["id"], "target": "compose"}
    assert_problem(api.post("/instances", json=again, user="bob"), 409)  # alice's, held again
    hosts = [route["host"] for route in api.get(f"/blueprints/{rule['id']}", user="alice").json["routes"]]
    assert hosts == ["a.example.com", "b.example.com"]


def test_a_profiles_cluster_names_that_are_no_names_are_dropped_and_its_routes_keep_to_hosts(app, api, caplog):
    """A domain stored when its pattern held a value's start alone would have written Traefik a
    rule of its own; after the migration it is gone (logged without its value), the rest kept."""
    injected = "apps.example.com`) || PathPrefix(`/"
    profile = create(api, "profiles", name="team", cluster={"storageClass": "fast", "tlsIssuer": "le"}).json
    with app.app_context():
        get_db().profiles.update_one(
            {"_id": ObjectId(profile["id"])}, {"$set": {"cluster.domain": injected, "cluster.ingressClass": "a_b"}}
        )
        get_db().settings.update_one({"_id": migrations.MIGRATED}, {"$set": {"value": 12}})
    with caplog.at_level(logging.WARNING, logger="app.migrations"):
        _restarted(app)
    assert api.get(f"/profiles/{profile['id']}", user="alice").json["cluster"] == {
        "storageClass": "fast",
        "tlsIssuer": "le",
    }
    logged = [record.getMessage() for record in caplog.records if record.name == "app.migrations"]
    assert f"profile {profile['id']}: its cluster's domain, ingressClass held no names; dropped" in logged
    assert not any("PathPrefix" in line for line in logged)
