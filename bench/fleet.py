"""Upgrades of many in `make bench`: 1,000 instances of the shared 1 KB Compose blueprint, admitted
through the API into one profile, then a new revision: `POST /instances/upgrade` of all of them as
a dry run and for real (each a job, followed until done), and, as the floor a client has without
it, the same 1,000 upgraded one request at a time (`POST /instances/{id}/upgrade`) to the next
revision. Wall time and the workers' CPU per instance, their ratios, and the profile's usage
checked against the sum of its instances after each."""

import time

from pymongo import MongoClient

from bench import scale
from support.http import SocketClient, basic

COUNT = 1_000
PROFILE = {"name": "fleet", "containerCap": "1000000", "containerDefaults": {"memory": "256Mi", "cpu": "250m"}}
COUNTED = ("memoryBytes", "cpuMillis", "containers", "storageBytes")


def run(mongo_uri, admin, body, start, count=COUNT, log=print):
    """{label: (seconds, worker CPU seconds)} of each way, on a service `start(db, None)` starts."""
    auth = {"Authorization": basic(*admin)}
    service = start("fleet", None)
    try:
        client = SocketClient(service.port, timeout=120)
        blueprint = client.post("/blueprints", json={**body, "name": "fleet"}, headers=auth).json
        profile = client.post("/profiles", json=PROFILE, headers=auth).json
        ids = []
        for index in range(count):
            sent = {"name": f"f{index}", "blueprint": blueprint["id"], "profile": profile["id"]}
            answer = client.post("/instances", json=sent, headers=auth)
            assert answer.status == 201, answer.body[:300]
            ids.append(answer.json["id"])
        spent = {}

        def revised(tag):
            changed = {"yml": body["yml"].replace("web:1.4.2", f"web:{tag}")}
            assert client.patch(f"/blueprints/{blueprint['id']}", json=changed, headers=auth).status == 200

        def measured(label, work):
            scale.settle(service.port)
            cpu, started = service.worker_cpu_seconds(), time.perf_counter()
            work()
            spent[label] = (time.perf_counter() - started, service.worker_cpu_seconds() - cpu)

        def fleet(dry_run):
            path = "/instances/upgrade" + ("?dryRun=true" if dry_run else "")
            job = client.post(path, json={"blueprint": blueprint["id"]}, headers=auth).json
            while job["state"] in ("queued", "running"):
                time.sleep(0.05)
                job = client.get(f"/jobs/{job['id']}", headers=auth).json
            outcomes = {one["outcome"] for one in job["report"]["results"]}
            assert job["state"] == "done" and outcomes == {"upgraded"}, (job["state"], outcomes)

        def one_by_one():
            for id_text in ids:
                assert client.post(f"/instances/{id_text}/upgrade", json={}, headers=auth).status == 200

        revised("1.5.0")
        measured(f"dry run of {count:,} in one request", lambda: fleet(True))
        measured(f"upgrade of {count:,} in one request", lambda: fleet(False))
        _check(mongo_uri, client, auth, profile)
        revised("1.6.0")
        measured(f"upgrade of {count:,}, a request each", one_by_one)
        _check(mongo_uri, client, auth, profile)
    finally:
        service.stop()
        MongoClient(mongo_uri).drop_database("fleet")
    log(f"\n{'upgrades of many (one blueprint, one profile)':44} {'s':>7} {'ms each':>8} {'CPU ms each':>12}")
    for label, (seconds, cpu) in spent.items():
        log(f"{label:44} {seconds:7.2f} {seconds * 1000 / count:8.2f} {cpu * 1000 / count:12.2f}")
    (dry, _), (fleet_s, fleet_cpu), (single_s, single_cpu) = spent.values()
    log(
        f"one request / a request each: wall {fleet_s / single_s:.2f}, CPU {fleet_cpu / single_cpu:.2f}; "
        f"dry run / upgrade: {dry / fleet_s:.2f}"
    )
    return spent


def _check(mongo_uri, client, auth, profile):
    """The profile's usage is the sum of its instances."""
    db = MongoClient(mongo_uri).fleet
    instances = list(db.instances.find({"profile": profile["id"]}, {"requirements": 1}))
    summed = {key: sum(doc["requirements"][key] for doc in instances) for key in COUNTED}
    usage = client.get(f"/profiles/{profile['id']}", headers=auth).json["usage"]
    unpriced = {"monthly": None, "currency": None, "observed": None}
    assert usage == {**summed, "instances": len(instances), **unpriced}, (usage, summed)
