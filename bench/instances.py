"""Admissions in `make bench`: `POST /instances` of the shared 1 KB Compose blueprint into a profile
with one instance and into one with 100,000 (seeded straight into the database, as the service
stores them, their usage summed on the profile), asked in turns, each admitted instance deleted
again so that the counts stay; beside them, in the same turns, a create of the same blueprint
(`POST /blueprints`). Sequential requests over loopback; medians and their ratios."""

import random
import statistics
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
    db.profiles.update_one({"_id": ObjectId(profile["id"])}, {"$set": {"usage": {**usage, "instances": count}}})
    pages.lower_floor(db.instances, ids.ms_of(now - timedelta(days=30)))


def run(mongo_uri, admin, body, start, log=print):
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
