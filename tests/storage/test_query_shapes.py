"""Every query a request sends has a shape both MongoDB and the embedded server serve from an
index: flat (no top-level $and/$or/$expr), never empty, every range bounded on both ends unless
an `_id` equality pins the document; no request counts, and none sends a findAndModify (the
embedded server answers one by reading the whole collection, whatever its filter: 375 ms at
20,000 documents against 2 ms for the same update). The one aggregation allowed is a read of one
document joined by `_id` to its part in another collection (a profile and its ledger): a `$match`
that an `_id` pins, then `$lookup`s whose foreign field is `_id` (0.44 ms at 50,000 documents in
each, against 0.63 ms for the two finds). The embedded server answers anything else by
reading the whole collection (docs/performance.md, "The embedded database, measured"), so a change
that brings such a query back fails here, whatever the timings of the day."""

import pytest
from pymongo import MongoClient, monitoring

from support.apps import add_users, database_name, serving, settings
from support.http import PASSWORD, SocketClient, basic

RANGE = {"$lt", "$lte", "$gt", "$gte"}
COUNTS = {"count", "distinct", "aggregate", "mapReduce", "findAndModify"}


class Recorder(monitoring.CommandListener):
    def __init__(self):
        self.filters, self.counts, self.on = [], [], False

    def started(self, event):
        if not self.on:
            return
        command, name = event.command, event.command_name
        if name == "aggregate" and joined_by_id(command["pipeline"]):
            self.filters.append((name, command["pipeline"][0]["$match"]))
        elif name in COUNTS:
            self.counts.append(name)
        elif name == "find":
            self.filters.append((name, command.get("filter", command.get("query", {}))))
        elif name in ("update", "delete"):
            self.filters += [(name, s["q"]) for s in command[name + "s"]]

    def succeeded(self, event):
        pass

    def failed(self, event):
        pass


def joined_by_id(pipeline):
    """Whether an aggregation reads one document by its `_id` and joins others to it by theirs."""
    first, *rest = pipeline
    pinned = "_id" in first.get("$match", {}) and not isinstance(first["$match"]["_id"], dict)
    return pinned and all(set(stage) == {"$lookup"} and stage["$lookup"]["foreignField"] == "_id" for stage in rest)


def index_served(query):
    """Why `query` would be a scan, or None when an index serves it."""
    if not query:
        return "empty filter"
    if any(key.startswith("$") for key in query):
        return "top-level operator"
    pinned = "_id" in query and (not isinstance(query["_id"], dict) or set(query["_id"]) <= {"$eq", "$in"})
    if pinned:
        return None
    operators = [value for value in query.values() if isinstance(value, dict)]
    if len(operators) > 1:
        return "more than one operator field"
    for ops in operators:
        bounds = set(ops) & RANGE
        if bounds and not (bounds & {"$lt", "$lte"} and bounds & {"$gt", "$gte"}):
            return "range open on one end"
    return None


@pytest.mark.parametrize(
    "query, why",
    [
        ({}, "empty filter"),
        ({"$or": [{"owner": "a"}, {"entitlementType": "PUBLIC"}]}, "top-level operator"),
        ({"$and": [{"owner": "a"}, {"_id": {"$lt": 1}}]}, "top-level operator"),
        ({"owner": "a", "_id": {"$lt": 1}}, "range open on one end"),
        ({"owner": "a", "_id": {"$lt": 9, "$gte": 1}}, None),
        ({"_id": 1, "expireAt": {"$gt": 0}}, None),
        ({"username": {"$in": ["a", "b"]}}, None),
    ],
)
def test_the_shape_rule_itself(query, why):
    assert index_served(query) == why


LOOKUP = {"$lookup": {"from": "ledgers", "localField": "_id", "foreignField": "_id", "as": "ledgers"}}


@pytest.mark.parametrize(
    "pipeline, allowed",
    [
        ([{"$match": {"_id": 1}}, LOOKUP], True),
        ([{"$match": {"_id": {"$gt": 1}}}, LOOKUP], False),
        ([{"$match": {"owner": "a"}}, LOOKUP], False),
        ([{"$match": {"_id": 1}}, {"$lookup": {**LOOKUP["$lookup"], "foreignField": "owner"}}], False),
        ([{"$match": {"_id": 1}}, {"$group": {"_id": None}}], False),
    ],
)
def test_the_join_rule_itself(pipeline, allowed):
    assert joined_by_id(pipeline) is allowed


@pytest.fixture
def recorded(mongo_server):
    """A socket-served app whose MongoDB client records every command sent while `on`."""
    from app import create_app

    recorder = Recorder()
    client = MongoClient(mongo_server.uri, event_listeners=[recorder], tz_aware=True, retryWrites=False)
    app = create_app(settings(MONGO_DB=database_name("shapes")), mongo_client=client)
    add_users(app)
    with serving(app) as port:
        recorder.on = True
        yield SocketClient(port), recorder


def answered(r, *statuses):
    """`r`, once its status is one of `statuses` (every request a test sends is checked)."""
    assert r.status in statuses, (r.status, r.body[:300])
    return r


def test_every_request_path_sends_only_index_served_queries(recorded):
    api, recorder = recorded
    made = {}
    for kind, body in {
        "own": {"name": "own", "blueprintType": "compose"},
        "public": {
            "name": "pub",
            "entitlementType": "PUBLIC",
            "description": "shared web",
            "blueprintType": "compose",
            "yml": "services:\n  web:\n    image: nginx\n",
        },
        "custom": {"name": "cus", "entitlementType": "CUSTOM", "entitledUsers": ["bob"]},
    }.items():
        made[kind] = answered(api.post("/blueprints", json=body, user="alice"), 201).json["id"]
    replay = {"headers": {"Idempotency-Key": "k1"}, "user": "alice", "json": {"name": "once"}}
    assert api.post("/blueprints", **replay).status == api.post("/blueprints", **replay).status == 201
    profile = answered(api.post("/profiles", json={"defaultProfile": True}, user="alice"), 201).json["id"]
    answered(api.post("/profiles", json={"defaultProfile": True}, user="alice"), 201)
    token = answered(api.post("/tokens", user="bob"), 201).json["token"]
    bearer = {"Authorization": f"Bearer {token}"}

    for path in [
        f"/blueprints/{made['public']}",
        f"/blueprints/{made['custom']}",
        f"/blueprints/{made['own']}",
        "/blueprints",
        "/blueprints?limit=1",
        "/blueprints?blueprintType=compose&inactive=false",
        "/blueprints?entitlementType=PUBLIC",
        "/blueprints?q=web",
        "/blueprints?name=pub&owner=alice",
        "/blueprints?tag=web",
        "/blueprints?owner=alice",
        "/blueprints?inactive=true",
        "/blueprints?q=sh%20web",
        "/blueprints?q=a",
        "/profiles",
        f"/profiles/{profile}",
        "/users/me",
        "/profiles?q=p&defaultProfile=false",
    ]:
        one = "?" not in path and path.count("/") == 2 and path != "/users/me"  # one resource: hidden or not
        for user in ("alice", "bob", "admin"):
            answered(api.get(path, user=user), 200, *([404] if one else []))
        answered(api.get(path, headers=bearer), 200, *([404] if one else []))
    page = answered(api.get("/blueprints?limit=1", user="bob"), 200).json
    answered(api.get(f"/blueprints?limit=1&cursor={page['next']}", user="bob"), 200)
    answered(api.get("/users?limit=2", user="admin"), 200)
    answered(api.get("/profiles?owner=alice&defaultProfile=true", user="admin"), 200)
    tag = answered(api.get(f"/blueprints/{made['own']}", user="alice"), 200).headers["etag"]
    answered(api.patch(f"/blueprints/{made['own']}", json={"name": "x"}, user="alice", headers={"If-Match": tag}), 200)
    answered(api.put(f"/profiles/{profile}", json={"defaultProfile": True}, user="alice"), 200)
    answered(api.patch(f"/profiles/{profile}", json={"name": "p"}, user="admin"), 200)
    public = f"/blueprints/{made['public']}"
    answered(api.put(f"{public}/star", user="bob"), 204)
    for path in [
        f"{public}/revisions",
        f"{public}/revisions?limit=1",
        f"{public}/revisions/1",
        f"{public}/diff",
        f"{public}/yml",
        "/blueprints?starred=true",
        "/blueprints?starred=false&tag=web",
        f"/blueprints?fitsProfile={profile}",
        f"/profiles?fits={made['own']}",
        f"{public}/fit?profile={profile}",
    ]:
        answered(api.get(path, user="alice" if "fits" in path or "fit?" in path else "bob"), 200)  # her profile
    answered(api.patch(public, json={"name": "pub2"}, user="alice"), 200)
    answered(api.post(f"{public}/revisions/1/restore", user="alice"), 200)
    answered(api.delete(f"{public}/star", user="bob"), 204)
    answered(api.delete(f"/blueprints/{made['custom']}", user="alice"), 204)
    answered(api.get("/users/me", user="bob", password="not " + PASSWORD), 401)
    answered(api.get("/users/me", headers={"Authorization": "Bearer forged"}), 401)
    answered(api.get("/users/me", headers={"Authorization": basic("nobody")}), 401)
    answered(api.delete("/tokens", headers=bearer), 204)

    assert len(recorder.filters) > 50
    scans = [(name, query, index_served(query)) for name, query in recorder.filters if index_served(query)]
    assert scans == []
    assert recorder.counts == []


class Examined(monitoring.CommandListener):
    """How many blueprints the database returned to the finds sent while `on`."""

    def __init__(self):
        self.count, self.most, self.on = 0, 0, False

    def started(self, event):
        pass

    def succeeded(self, event):
        cursor = event.reply.get("cursor", {}) if self.on else {}
        if cursor.get("ns", "").endswith(".blueprints"):
            read = len(cursor.get("firstBatch", cursor.get("nextBatch", ())))
            self.count, self.most = self.count + read, max(self.most, read)

    def failed(self, event):
        pass


NEEDLE = {
    "name": "needle",
    "tags": ["needle-tag"],
    "blueprintType": "needle-type",
    "owner": "nina",
    "description": "the only zyxwvut here",
    "inactive": True,
    "entitlementType": "CUSTOM",
    "entitledUsers": ["bob"],
}
SELECTIVE = [
    "name=needle",
    "tag=needle-tag",
    "blueprintType=needle-type",
    "q=zyxwvut",
    "q=zyxw",
    "owner=nina",
    "inactive=true",
    "q=only%20zyxwv",
    "name=nothing",
    "q=nothing",
    "tag=needle-tag&inactive=true",
]


def seed(db, count):
    """`count` blueprints over the last 30 days, the last of them NEEDLE, the rest as `make
    bench` seeds them: 60/30/10 % OWNER/PUBLIC/CUSTOM among ten owners, common words and tags."""
    import random
    from datetime import timedelta

    from app.blueprints.storage import store
    from app.storage import ids
    from app.storage.database import now

    rng, end, docs = random.Random(count), now(), []
    for i in range(count):
        created = end - timedelta(seconds=rng.uniform(0, 30 * 86400))
        kind = rng.choice(["OWNER"] * 6 + ["PUBLIC"] * 3 + ["CUSTOM"])
        doc = {
            "name": f"bp-{i}",
            "description": "web tier with a cache",
            "tags": ["web"],
            "blueprintType": "compose",
            "owner": f"owner{i % 10}",
            "entitlementType": kind,
            "inactive": False,
            "entitledUsers": ["carol"] if kind == "CUSTOM" else [],
        }
        if i == count - 1:
            doc.update(NEEDLE)
        doc.update(_id=ids.new_id(created), createdAt=created, updatedAt=created, updatedBy=doc["owner"], rev=1)
        docs.append({**doc, "keys": store.keys(doc)})
    db.blueprints.insert_many(docs)


def examined_by(mongo_server, count):
    """For each selective list of SELECTIVE, as bob and as the admin: (items, blueprints read)."""
    from app import create_app

    listener = Examined()
    client = MongoClient(mongo_server.uri, event_listeners=[listener], tz_aware=True, retryWrites=False)
    name = database_name("examined")
    seed(client[name], count)
    app = create_app(settings(MONGO_DB=name), mongo_client=client)
    add_users(app)
    found = {}
    with serving(app) as port:
        api = SocketClient(port)
        for query in SELECTIVE:
            for user in ("bob", "admin"):
                listener.count, listener.on = 0, True
                r = api.get(f"/blueprints?limit=5&{query}", user=user)
                listener.on = False
                assert r.status == 200, r.json
                found[query, user] = (len(r.json["items"]), listener.count)
    return found


def test_a_selective_page_reads_only_its_matches_however_large_the_collection(mongo_server):
    small, large = examined_by(mongo_server, 100), examined_by(mongo_server, 1_000)
    assert small == large
    assert all(read == items for items, read in large.values())
    assert large["name=needle", "bob"] == large["q=zyxw", "admin"] == (1, 1)
    assert large["name=nothing", "bob"] == (0, 0)


BOUNDS = {"LIST_WINDOW_DOCS": 40, "LIST_MOST_EXAMINED": 300}


def test_no_window_reads_more_than_its_bound_nor_a_page_past_its_own(mongo_server):
    from app import create_app

    listener = Examined()
    client = MongoClient(mongo_server.uri, event_listeners=[listener], tz_aware=True, retryWrites=False)
    name = database_name("windows")
    seed(client[name], 1_000)
    app = create_app(settings(MONGO_DB=name, **BOUNDS), mongo_client=client)
    add_users(app)
    with serving(app) as port:
        api = SocketClient(port)
        tight = api.post("/profiles", json={"memoryCap": "1Ki"}, user="admin").json["id"]
        listener.on = True
        r = api.get(f"/blueprints?fitsProfile={tight}", user="admin")  # fits none: a walk of everything
    assert r.status == 200 and r.json["items"] == [] and r.json["next"]
    assert 300 <= listener.count <= 300 + 3 * 40
    assert listener.most <= 3 * 40  # a window is sized by the density the one before found
