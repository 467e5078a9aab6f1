"""The scale scenario of `make bench`: what a request costs at 1,000 and at 100,000 blueprints.

Blueprints are seeded straight into the database, their creation times spread over the same 30
days at both sizes (100 times denser at 100,000), owned by 100 users of whom the measuring
member is one: 60 % OWNER, 30 % PUBLIC, 10 % CUSTOM (a fifth of those naming the member);
types compose, kubernetes, helm; the member has starred a fifth of the PUBLIC ones (so that a
page of what they starred is full at both sizes). A fresh service (gunicorn, as `make run` starts it) is started
on each size, and each operation is timed sequentially over loopback; the table gives medians.
"""

import random
import statistics
import time
from datetime import UTC, datetime, timedelta

from pymongo import MongoClient

from app import definitions, ids
from tests.http import SocketClient, basic
from tests.processes import Gunicorn

DAYS = 30
MEMBER = ("bench-member", "bench-member-password")
OWNERS = [MEMBER[0]] + [f"owner{i}" for i in range(99)]
TYPES = ("compose", "kubernetes", "helm")
WORDS = ["web", "tier", "postgres", "redis", "cache", "worker", "queue", "api", "gateway", "batch", "metrics", "search"]


def seed(blueprints, count, body, rng):
    """Add `count` blueprints created at random moments of the last DAYS days, as the service
    stores them (with their requirements: a blueprint stored before those existed is measured
    when read, which a list page of 50 pays for each of them)."""
    end = datetime.now(UTC)
    stored = {"requirements": definitions.requirements(body["blueprintType"], body["yml"])}
    for start in range(0, count, 5000):
        batch = []
        for _ in range(min(5000, count - start)):
            moment = end - timedelta(seconds=rng.uniform(0, DAYS * 86400))
            moment = moment.replace(microsecond=moment.microsecond // 1000 * 1000)
            kind = rng.choices(("OWNER", "PUBLIC", "CUSTOM"), (60, 30, 10))[0]
            named = rng.sample(OWNERS[1:], 3) + ([MEMBER[0]] if rng.random() < 0.2 else [])
            batch.append({
                **body, **stored, "_id": ids.new_id(moment), "name": f"bp-{rng.randrange(10**6)}",
                "description": " ".join(rng.sample(WORDS, 4)), "blueprintType": rng.choice(TYPES),
                "entitlementType": kind, "entitledUsers": named if kind == "CUSTOM" else [],
                "starredBy": [MEMBER[0]] if kind == "PUBLIC" and rng.random() < 0.2 else [],
                "owner": (owner := rng.choice(OWNERS)), "updatedBy": owner,
                "createdAt": moment, "updatedAt": moment, "rev": 1,
            })  # fmt: skip
        blueprints.insert_many(batch, ordered=False)
    blueprints.database.settings.delete_one({"_id": "floor:blueprints"})  # older than the floor: find it again


def settle(port, quiet_ms=20, timeout=60):
    """Wait until the database answers a ping quickly: queries a run left in flight (a list page
    on the embedded server sorts the whole collection) must not weigh on the next run."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        started = time.perf_counter()
        SocketClient(port).get("/readyz")
        if (time.perf_counter() - started) * 1000 < quiet_ms:
            return
        time.sleep(0.5)


def median_ms(client, path, headers, repeats):
    times = []
    for _ in range(repeats):
        started = time.perf_counter()
        r = client.get(path, headers=headers)
        times.append((time.perf_counter() - started) * 1000)
        assert r.status == 200, (path, r.status, r.body[:200])
    return statistics.median(times)


def measure(port, admin_headers, repeats):
    """Median milliseconds of each operation, as the member (and one as the admin)."""
    client, member = SocketClient(port), {"Authorization": basic(*MEMBER)}
    first = client.get("/blueprints?entitlementType=PUBLIC&limit=1", headers=member)
    assert first.status == 200, first.body[:300]
    one = first.json["items"][0]["id"]
    deep = "/blueprints?limit=50"
    for _ in range(4):
        deep = "/blueprints?limit=50&cursor=" + client.get(deep, headers=member).json["next"]
    own = client.post("/blueprints", json={"name": "mine", "tags": ["bench"]}, headers=member).json["id"]
    for i in range(10):  # a history of 11 versions
        client.patch(f"/blueprints/{own}", json={"name": f"mine {i}"}, headers=member)
    operations = {
        "GET /blueprints/{id}": (f"/blueprints/{one}", member),
        "GET /blueprints/{id}/revisions": (f"/blueprints/{own}/revisions", member),
        "GET /blueprints?limit=50&starred=true": ("/blueprints?limit=50&starred=true", member),
        "GET /blueprints?limit=50": ("/blueprints?limit=50", member),
        "same, 5 pages deep": (deep, member),
        "same, blueprintType=kubernetes": ("/blueprints?limit=50&blueprintType=kubernetes", member),
        "same, q=postgres": ("/blueprints?limit=50&q=postgres", member),
        "GET /profiles?limit=50 (5 profiles)": ("/profiles?limit=50", member),
        "admin: GET /blueprints?limit=50": ("/blueprints?limit=50", admin_headers),
    }
    for path, headers in operations.values():  # warm the worker's caches
        client.get(path, headers=headers)
    medians = {name: median_ms(client, path, headers, repeats) for name, (path, headers) in operations.items()}
    medians["PATCH /blueprints/{id} (history kept)"] = median_patch_ms(client, own, member, repeats)
    return medians


def median_patch_ms(client, blueprint, headers, repeats):
    times = []
    for i in range(repeats):
        started = time.perf_counter()
        r = client.patch(f"/blueprints/{blueprint}", json={"description": f"change {i}"}, headers=headers)
        times.append((time.perf_counter() - started) * 1000)
        assert r.status == 200, r.body[:200]
    return statistics.median(times)


def run(mongo_uri, admin, body, profile, sizes=(1000, 100_000), repeats=40, log=print):
    """Seed each size in turn (the database "scale"), measure, and print both with their ratio."""
    rng = random.Random(20261122)
    blueprints = MongoClient(mongo_uri).scale.blueprints
    results, have = {}, 0
    for size in sizes:
        started = time.monotonic()
        seed(blueprints, size - have, body, rng)
        have = size
        log(f"seeded {size:,} blueprints ({time.monotonic() - started:.0f} s)")
        service = Gunicorn(MONGO_URI=mongo_uri, MONGO_DB="scale", ADMIN_USERNAME=admin[0], ADMIN_PASSWORD=admin[1],
                           LOG_LEVEL="warning", RATE_LIMIT="1000000000 per minute").start()  # fmt: skip
        try:
            settle(service.port)  # the database is still writing out what was seeded
            admin_headers = {"Authorization": basic(*admin)}
            client = SocketClient(service.port)
            if client.post("/users", json={"username": MEMBER[0], "password": MEMBER[1], "role": "member"},
                           headers=admin_headers).status == 201:  # fmt: skip
                for _ in range(5):
                    client.post("/profiles", json=profile, headers={"Authorization": basic(*MEMBER)})
            results[size] = measure(service.port, admin_headers, repeats)
        finally:
            service.stop()
    small, large = sizes
    log(f"\n{'operation (as a member)':38} {small:>9,} {large:>9,} {'ratio':>6}")
    for name in results[small]:
        a, b = results[small][name], results[large][name]
        log(f"{name:38} {a:7.1f}ms {b:7.1f}ms {b / a:6.2f}")
    return results
