"""Admissions in `make bench`, beside creates.

Sequential: `POST /instances` of the shared 1 KB Compose blueprint into a profile with one
instance and into one with 100,000 (seeded straight into the database, as the service stores
them, their usage summed on the profile), asked in turns, each admitted instance deleted again so
that the counts stay; beside them, in the same turns, a create of the same blueprint (`POST
/blueprints`). Medians and their ratios.

Concurrent: 1 and 8 clients admitting into one profile (every admission reserves on the same
document), and the same clients creating blueprints, for CONCURRENT_SECONDS each, in turns (A B A
B), on this revision and on the one `--against` names, each on its own database. Admissions and
creates a second, and their ratios."""

import random
import statistics
import threading
import time
from datetime import UTC, datetime, timedelta

from bson import ObjectId
from pymongo import MongoClient

from app import definitions
from app.instances.storage import store
from app.storage import ids, pages
from bench import scale
from support.http import SocketClient, basic

REPEATS = 60
MANY = 100_000
CLIENTS = (1, 8)
CONCURRENT_SECONDS = 4
CONCURRENT_ROUNDS = 5
# The shared body declares its web service's limits and none for the others: a profile with
# container defaults counts them, as most profiles that admit published templates do.
PROFILE = {
    "memoryCap": "100Ti",
    "cpuCap": "1000000",
    "containerCap": "10000000",
    "containerDefaults": {"memory": "256Mi", "cpu": "250m"},
}


def _seed(db, blueprint, profile, count, owner):
    """`count` instances of `blueprint` in `profile`, as the service stores them, and their usage."""
    requirements = definitions.measure(definitions.format_of("compose"), blueprint["yml"])
    batch, now = [], datetime.now(UTC)
    for i in range(count):
        moment = now - timedelta(seconds=random.uniform(0, 30 * 86400))
        doc = {
            "_id": ids.new_id(moment),
            "name": f"seeded-{count}-{i}",
            "blueprint": blueprint["id"],
            "blueprintRev": 1,
            "profile": profile["id"],
            "profileOwner": owner,
            "values": {},
            "kept": {},
            "requirements": requirements,
            "yml": blueprint["yml"],
            "owner": owner,
            "createdAt": moment,
            "updatedAt": moment,
            "updatedBy": owner,
            "rev": 1,
        }
        batch.append({**doc, "keys": store.keys(doc)})
        if len(batch) == 5000 or i == count - 1:
            db.instances.insert_many(batch, ordered=False)
            batch = []
    usage = {key: count * requirements[key] for key in ("memoryBytes", "cpuMillis", "containers", "storageBytes")}
    counted = {"usage": {**usage, "instances": count}, "ledger": {}}
    db.ledgers.update_one({"_id": ObjectId(profile["id"])}, {"$set": counted}, upsert=True)
    pages.lower_floor(db.instances, ids.ms_of(now - timedelta(days=30)))


def run(mongo_uri, admin, body, start, against=None, log=print):
    """Both parts; `start(db, cwd)` starts a service on database `db` from checkout `cwd` (None:
    this one)."""
    medians = sequential(mongo_uri, admin, body, lambda db: start(db, None), log)
    return medians, concurrent(mongo_uri, admin, body, start, against, log)


def concurrent(mongo_uri, admin, body, start, against, log):
    """{(revision, operation, clients): [per second, per round]}, and the table of medians."""
    auth = {"Authorization": basic(*admin)}
    revisions = {"this": None, **({"against": against} if against else {})}
    services = {label: start(f"concurrent-{i}", cwd) for i, (label, cwd) in enumerate(revisions.items())}
    rates = {}
    try:
        targets = {}
        for label, service in services.items():
            client = SocketClient(service.port)
            blueprint = client.post("/blueprints", json={**body, "name": "deployed"}, headers=auth).json
            profile = client.post("/profiles", json={**PROFILE, "name": "team"}, headers=auth).json
            targets[label] = blueprint["id"], profile["id"]
        for turn in range(CONCURRENT_ROUNDS):
            for clients in CLIENTS:
                for label, service in services.items():
                    blueprint, profile = targets[label]

                    def admit(k, i, prefix=f"r{turn}-c{clients}-k", blueprint=blueprint, profile=profile):
                        return "/instances", {"name": f"{prefix}{k}-{i}", "blueprint": blueprint, "profile": profile}

                    for operation, request in (("admission", admit), ("create", lambda k, i: ("/blueprints", body))):
                        scale.settle(service.port)
                        rate = _burst(service.port, auth, clients, request)
                        rates.setdefault((label, operation, clients), []).append(rate)
    finally:
        for service in services.values():
            service.stop()
        for i in range(len(revisions)):
            MongoClient(mongo_uri).drop_database(f"concurrent-{i}")
    log(f"\n{'one profile, concurrent clients (medians of ' + str(CONCURRENT_ROUNDS) + ')':52} {'per s':>8}")
    for (label, operation, clients), found in rates.items():
        row = f"{operation} [{label}], {clients} client{'s' * (clients > 1)}"
        log(f"{row:52} {statistics.median(found):8.1f}")
    for label in revisions:
        for clients in CLIENTS:
            ratio = statistics.median(rates[label, "create", clients]) / statistics.median(
                rates[label, "admission", clients]
            )
            log(f"[{label}] {clients} client{'s' * (clients > 1)}: an admission costs {ratio:.2f} creates")
    if against:
        for operation in ("admission", "create"):
            for clients in CLIENTS:
                pairs = zip(rates["this", operation, clients], rates["against", operation, clients], strict=True)
                ratios = [ours / theirs for ours, theirs in pairs]
                listed = " ".join(f"{ratio:.3f}" for ratio in ratios)
                log(
                    f"{operation}s a second, {clients} client(s), this / against per round: {listed}; "
                    f"median {statistics.median(ratios):.3f}"
                )
    return rates


def _burst(port, auth, clients, request):
    """Requests a second that `clients` threads complete in CONCURRENT_SECONDS, each sending
    `request(client, i)` (a path and a body) again as soon as the last is answered (201)."""
    done, deadline = [0] * clients, time.monotonic() + CONCURRENT_SECONDS

    def work(k):
        client = SocketClient(port)
        while time.monotonic() < deadline:
            path, sent = request(k, done[k])
            r = client.post(path, json=sent, headers=auth)
            assert r.status == 201, r.body[:300]
            done[k] += 1

    threads = [threading.Thread(target=work, args=(k,)) for k in range(clients)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return sum(done) / CONCURRENT_SECONDS


def sequential(mongo_uri, admin, body, start, log):
    """Seed, start `start(db)` (a service on database `db`), and time admissions in turns."""
    db = MongoClient(mongo_uri).admissions
    service = start("admissions")
    try:
        client, auth = SocketClient(service.port), {"Authorization": basic(*admin)}
        blueprint = client.post("/blueprints", json={**body, "name": "deployed"}, headers=auth).json
        profiles = {
            label: client.post("/profiles", json={**PROFILE, "name": label}, headers=auth).json
            for label in ("1 instance", f"{MANY:,} instances")
        }
        _seed(db, blueprint, profiles["1 instance"], 1, admin[0])
        _seed(db, blueprint, profiles[f"{MANY:,} instances"], MANY, admin[0])
    finally:
        service.stop()
    service = start("admissions")  # again: its list floor is the seeded one
    try:
        client = SocketClient(service.port)
        times = {f"admission, {label}": [] for label in profiles} | {"POST /blueprints (the same body)": []}
        for i in range(REPEATS):
            for label, profile in profiles.items():
                scale.settle(service.port)
                sent = {"name": f"bench-{i}", "blueprint": blueprint["id"], "profile": profile["id"]}
                ms, r = scale.timed(client.post, "/instances", json=sent, headers=auth)
                assert r.status == 201, r.body[:300]
                times[f"admission, {label}"].append(ms)
                assert client.delete(f"/instances/{r.json['id']}", headers=auth).status == 204
            scale.settle(service.port)
            ms, r = scale.timed(client.post, "/blueprints", json=body, headers=auth)
            assert r.status == 201, r.body[:300]
            times["POST /blueprints (the same body)"].append(ms)
        usage = client.get(f"/profiles/{profiles[f'{MANY:,} instances']['id']}", headers=auth).json["usage"]
        assert usage["instances"] == MANY, usage
    finally:
        service.stop()
        MongoClient(mongo_uri).drop_database("admissions")
    medians = {name: statistics.median(found) for name, found in times.items()}
    one, many, create = medians.values()
    log(f"\n{'admissions (sequential, medians of ' + str(REPEATS) + ')':48} {'ms':>8}")
    for name, ms in medians.items():
        log(f"{name:48} {ms:8.2f}")
    log(f"{MANY:,} instances / 1 instance: {many / one:.2f}; an admission / a create: {one / create:.2f}")
    return medians
