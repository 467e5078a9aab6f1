"""The fits scenario of `make bench`: a catalog page filtered by the profile it fits
(`GET /blueprints?limit=50&fitsProfile=`), at 1,200 and at 100,000 blueprints, against profiles
with only caps and with container defaults and a maximum, each where nothing fits (the walk the
list may make) and where everything does. With `--against REVISION`, that revision serves a
database seeded alike, and the two are asked in turns (A B A B), so that their ratio holds on a
noisy machine; a profile it cannot store (defaults came with this one) is measured here only.
"""

import random
import statistics

from pymongo import MongoClient

from bench import scale
from support.http import SocketClient, basic

REPEATS = 25
MEMBER = scale.MEMBER
DEFAULTS = {"containerDefaults": {"memory": "256Mi", "cpu": "250m"}, "containerMax": {"memory": "2Gi"}}
PROFILES = {  # name -> the profile; what the shared blueprint (4 services, 3 declaring nothing) meets
    "caps, fits none": {"memoryCap": "1Mi"},
    "caps, fits all": {"containerCap": "1000"},
    "defaults and maximum, fits none": {"memoryCap": "1Mi", **DEFAULTS},
    "defaults and maximum, fits all": {"memoryCap": "1Ti", "cpuCap": "1000", **DEFAULTS},
}


def _prepared(port, admin):
    """The member and the profiles on the service on `port`: {scenario: path}."""
    client, member = SocketClient(port), {"Authorization": basic(*MEMBER)}
    client.post(
        "/users",
        json={"username": MEMBER[0], "password": MEMBER[1], "role": "member"},
        headers={"Authorization": basic(*admin)},
    )
    paths = {}
    for name, profile in PROFILES.items():
        made = client.post("/profiles", json={"name": name, **profile}, headers=member)
        if made.status == 201:  # an earlier revision may not know every field
            paths[name] = f"/blueprints?limit=50&fitsProfile={made.json['id']}"
    return paths


def run(mongo_uri, admin, body, start, sizes=(1200, 100_000), against=None, log=print):
    """Seed each size into one database per revision, start `start(db, cwd)` on each, and time
    each scenario on both in turns. `against` is the other revision's worktree (None: this one
    alone)."""
    client, have = MongoClient(mongo_uri), 0
    databases = {"this": "fits", **({"against": "fits_against"} if against else {})}
    rng = {db: random.Random(20261126) for db in databases.values()}
    results = {}
    for size in sizes:
        for db in databases.values():  # the same blueprints in each: the same generator's draws
            scale.seed_many(client[db].blueprints, size - have, body, rng[db], needle=not have)
        have = size
        services = {label: start(db, None if label == "this" else against) for label, db in databases.items()}
        try:
            paths = {label: _prepared(service.port, admin) for label, service in services.items()}
            times = {(label, name): [] for label in services for name in paths[label]}
            member = {"Authorization": basic(*MEMBER)}
            for label, service in services.items():  # warm each worker's caches
                for path in paths[label].values():
                    SocketClient(service.port).get(path, headers=member)
            for _ in range(REPEATS):
                for name in PROFILES:
                    for label, service in services.items():
                        if name in paths[label]:
                            scale.settle(service.port)
                            ms, r = scale.timed(SocketClient(service.port).get, paths[label][name], headers=member)
                            assert r.status == 200, r.body[:200]
                            times[label, name].append(ms)
            results[size] = {key: statistics.median(found) for key, found in times.items()}
        finally:
            for service in services.values():
                service.stop()
    for db in databases.values():
        client.drop_database(db)
    header = f"{'fitsProfile, limit 50':34}" + "".join(f" {f'{size:,} this':>13}" for size in sizes)
    if against:
        header += "".join(f" {f'{size:,} before':>13} {'ratio':>6}" for size in sizes)
    log("\n" + header)
    for name in PROFILES:
        row = f"{name:34}" + "".join(f" {results[size]['this', name]:11.1f}ms" for size in sizes)
        for size in sizes if against else ():
            before = results[size].get(("against", name))
            ratio = results[size]["this", name] / before if before else None
            row += f" {before:11.1f}ms {ratio:6.2f}" if before else f" {'-':>13} {'-':>6}"
        log(row)
    return results
