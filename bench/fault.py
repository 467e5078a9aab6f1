"""`make fault-test`: under a steady write load, kill -9 the database, then the service; restart
both; retry every create that got no 201 with its Idempotency-Key; then check that every id ever
acknowledged is readable and that no retry made a duplicate. Then the same kill -9 under
concurrent PATCHes: every blueprint must still have each of its earlier versions kept. Then under
admissions, upgrades and deletes of instances: once the ledger's lease has passed, a profile's
usage must be the sum of its instances. Loopback only, bounded in time.
"""

import argparse
import http.client
import json
import os
import random
import sys
import tempfile
import threading
import time
from collections import Counter
from pathlib import Path

from bson import ObjectId
from pymongo import MongoClient

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from app.storage import embedded  # noqa: E402
from support.http import SocketClient, basic  # noqa: E402
from support.ports import free_port  # noqa: E402
from support.processes import Gunicorn  # noqa: E402

ADMIN = ("fault-admin", "fault-password-1")
AUTH = basic(*ADMIN)
REQUEST_TIMEOUT = 5  # the service's; idempotency claims of killed requests expire after twice this


def create(port, key):
    """POST a profile named `key` under Idempotency-Key `key`."""
    return SocketClient(port, timeout=10).post(
        "/profiles", json={"name": key}, headers={"Authorization": AUTH, "Idempotency-Key": key}
    )


def run(seconds_before=4.0, seconds_down=2.0, writers=4, log=print):
    data = os.path.join(tempfile.mkdtemp(prefix="fault-"), "data")
    db_port = free_port()
    database, uri = embedded.launch(data, db_port)
    service = Gunicorn(
        MONGO_URI=uri,
        MONGO_DB="fault",
        WEB_CONCURRENCY=2,
        ADMIN_USERNAME=ADMIN[0],
        ADMIN_PASSWORD=ADMIN[1],
        REQUEST_TIMEOUT=REQUEST_TIMEOUT,
        RATE_LIMIT="1000000 per minute",
        LOG_LEVEL="error",
    ).start()

    acknowledged, unanswered, lock, stop = {}, {}, threading.Lock(), threading.Event()

    def write(writer):
        i = 0
        while not stop.is_set():
            key = f"w{writer}-{i}"
            i += 1
            try:
                r = create(service.port, key)
                status, body = r.status, r.json
            except (OSError, http.client.HTTPException):  # the service was killed mid-answer
                status, body = None, None
            with lock:
                if status == 201:
                    acknowledged[key] = body["id"]
                else:
                    unanswered[key] = status
            if status != 201:
                time.sleep(0.05)

    threads = [threading.Thread(target=write, args=(w,)) for w in range(writers)]
    for thread in threads:
        thread.start()
    time.sleep(seconds_before)
    before = len(acknowledged)
    database.kill()  # kill -9
    database.wait()
    time.sleep(seconds_down / 2)
    service.kill()
    time.sleep(seconds_down / 2)
    stop.set()
    for thread in threads:
        thread.join()
    log(
        f"before the faults: {before} acknowledged; in all {len(acknowledged)} acknowledged, "
        f"{len(unanswered)} without a 201 ({dict(Counter(unanswered.values()))})"
    )

    database, _ = embedded.launch(data, db_port)
    profiles = MongoClient(uri).fault.profiles
    stored_unanswered = profiles.count_documents({"name": {"$in": list(unanswered)}})
    service.start()
    started = time.monotonic()
    retried = {}
    for key in sorted(unanswered):
        while True:
            r = create(service.port, key)
            if r.status == 201:
                retried[key] = r.json["id"]
                break
            if r.status not in (409, 503) or time.monotonic() - started > 6 * REQUEST_TIMEOUT:
                raise AssertionError(f"retry of {key} answered {r.status}: {r.body}")
            time.sleep(float(r.headers.get("retry-after", "1")))

    unreadable = [
        key
        for key, id_ in {**acknowledged, **retried}.items()
        if SocketClient(service.port).get(f"/profiles/{id_}", headers={"Authorization": AUTH}).status != 200
    ]
    names = Counter(d["name"] for d in profiles.find({}, {"name": 1}))
    report = {
        "acknowledged": len(acknowledged),
        "acknowledged_before_faults": before,
        "unanswered_retried": len(unanswered),
        "unanswered_but_stored_before_retry": stored_unanswered,
        "documents": sum(names.values()),
        "lost": len(unreadable),
        "duplicates": sum(n - 1 for n in names.values() if n > 1),
        "missing_after_retry": len(set(acknowledged) | set(retried)) - len(names),
    }
    service.stop()
    database.terminate()
    database.wait()
    return report


def history_run(seconds_before=3.0, writers=4, log=print):
    """kill -9 of the database and the service under concurrent PATCHes of `writers` blueprints;
    after a restart, every blueprint must have each of its versions 1..rev-1 kept."""
    data = os.path.join(tempfile.mkdtemp(prefix="fault-history-"), "data")
    db_port = free_port()
    database, uri = embedded.launch(data, db_port)
    settings = {
        "MONGO_URI": uri,
        "MONGO_DB": "history",
        "WEB_CONCURRENCY": 2,
        "ADMIN_USERNAME": ADMIN[0],
        "ADMIN_PASSWORD": ADMIN[1],
        "REVISIONS_KEPT": 100_000,
        "RATE_LIMIT": "1000000 per minute",
        "LOG_LEVEL": "error",
    }
    service = Gunicorn(**settings).start()
    headers = {"Authorization": AUTH}
    ids = [
        SocketClient(service.port).post("/blueprints", json={"name": "b"}, headers=headers).json["id"]
        for _ in range(writers)
    ]
    stop, acknowledged = threading.Event(), Counter()

    def write(blueprint):
        i = 0
        while not stop.is_set():
            i += 1
            try:  # two writers a blueprint: concurrent changes of one document
                r = SocketClient(service.port, timeout=10).patch(
                    f"/blueprints/{blueprint}", json={"name": f"n{i}"}, headers=headers
                )
                acknowledged[blueprint] += r.status == 200
            except (OSError, http.client.HTTPException):  # the service was killed mid-answer
                time.sleep(0.05)

    threads = [threading.Thread(target=write, args=(blueprint,)) for blueprint in ids for _ in range(2)]
    for thread in threads:
        thread.start()
    time.sleep(seconds_before)
    database.kill()  # kill -9, then the service, mid-write
    database.wait()
    service.kill()
    stop.set()
    for thread in threads:
        thread.join()
    database, _ = embedded.launch(data, db_port)
    db = MongoClient(uri).history
    report = {
        "acknowledged_changes": sum(acknowledged.values()),
        "blueprints": len(ids),
        "missing_versions": 0,
        "versions_checked": 0,
        "acknowledged_but_lost": 0,
    }
    for doc in db.blueprints.find({}):
        kept = {r["rev"] for r in db.revisions.find({"blueprint": doc["_id"]}, {"rev": 1})}
        report["missing_versions"] += len(set(range(1, doc["rev"])) - kept)
        report["versions_checked"] += doc["rev"] - 1
        report["acknowledged_but_lost"] += max(0, acknowledged[str(doc["_id"])] - (doc["rev"] - 1))
    log(f"history under kill -9: {report}")
    database.terminate()
    database.wait()
    return report


USAGE_TEMPLATE = "services:\n  app:\n    image: nginx\n    deploy:\n      replicas: ${REPLICAS}\n"
USAGE_PARAMETERS = {
    "type": "object",
    "properties": {"REPLICAS": {"type": "integer", "default": 1, "minimum": 0, "maximum": 4}},
}
COUNTED = ("memoryBytes", "cpuMillis", "containers", "storageBytes")


def _settings(uri, db):
    """A service of two workers on database `db` of `uri`, with the fault tests' admin and a short
    request time limit (so the leases of what a kill left pass soon)."""
    return {
        "MONGO_URI": uri,
        "MONGO_DB": db,
        "WEB_CONCURRENCY": 2,
        "ADMIN_USERNAME": ADMIN[0],
        "ADMIN_PASSWORD": ADMIN[1],
        "REQUEST_TIMEOUT": REQUEST_TIMEOUT,
        "RATE_LIMIT": "1000000 per minute",
        "LOG_LEVEL": "error",
    }


def usage_run(seconds_before=3.0, writers=4, log=print):
    """Admissions, upgrades and deletes of instances of one profile under load, kill -9 of the
    database and then of the service, both restarted; once the ledger's lease has passed, the
    profile's usage must be the sum of the instances that exist, and every answer must have told
    the truth: an admission answered 201 exists unless a delete of it answered 204 or did not say
    (no answer, or a 503 saying that whether it took place is not known), and a delete answered
    otherwise left its instance."""
    data = os.path.join(tempfile.mkdtemp(prefix="fault-usage-"), "data")
    db_port = free_port()
    database, uri = embedded.launch(data, db_port)
    service = Gunicorn(**_settings(uri, "usage")).start()
    headers, client = {"Authorization": AUTH}, SocketClient(service.port)
    template = {"name": "app", "blueprintType": "compose", "yml": USAGE_TEMPLATE, "parameters": USAGE_PARAMETERS}
    blueprint = client.post("/blueprints", json=template, headers=headers).json["id"]
    profile = client.post(
        "/profiles",
        json={
            "name": "team",
            "containerCap": "40",
            "memoryCap": "4Gi",
            "cpuCap": "4",
            "containerDefaults": {"memory": "128Mi", "cpu": "100m"},
        },
        headers=headers,
    ).json["id"]
    stop, lock = threading.Event(), threading.Lock()
    admitted, deleted, unsaid, refused, answers = set(), set(), set(), set(), Counter()

    def work(writer):
        rng, i = random.Random(writer), 0
        while not stop.is_set():
            i += 1
            try:
                session = SocketClient(service.port, timeout=10)
                mine = sorted(admitted - deleted)
                if mine and rng.random() < 0.4:
                    target = rng.choice(mine)
                    if rng.random() < 0.5:
                        with lock:
                            unsaid.add(target)  # until it answers: a delete that gets none may have happened
                        r = session.delete(f"/instances/{target}", headers=headers)
                        with lock:
                            _delete_answered(r, target, deleted, unsaid, refused)
                    else:
                        values = {"values": {"REPLICAS": rng.randint(0, 4)}}
                        r = session.post(f"/instances/{target}/upgrade", json=values, headers=headers)
                else:
                    body = {
                        "name": f"w{writer}-{i}",
                        "blueprint": blueprint,
                        "profile": profile,
                        "values": {"REPLICAS": rng.randint(0, 4)},
                    }
                    r = session.post("/instances", json=body, headers=headers)
                    with lock:
                        admitted.update([r.json["id"]] if r.status == 201 else [])
                answers[r.status] += 1
            except (OSError, http.client.HTTPException):
                answers["no answer"] += 1
                time.sleep(0.05)

    threads = [threading.Thread(target=work, args=(w,)) for w in range(writers)]
    for thread in threads:
        thread.start()
    time.sleep(seconds_before)
    database.kill()  # kill -9, then the service, mid-write
    database.wait()
    time.sleep(0.5)
    database, _ = embedded.launch(data, db_port)
    time.sleep(seconds_before)
    service.kill()
    stop.set()
    for thread in threads:
        thread.join()
    service.start()
    time.sleep(2 * REQUEST_TIMEOUT + 1)  # the ledger's lease: what the killed requests left is settled now
    stored = SocketClient(service.port).get(f"/profiles/{profile}", headers=headers).json
    db = MongoClient(uri).usage
    instances = list(db.instances.find({"profile": profile}, {"requirements": 1, "yml": 1}))
    summed = {key: sum(doc["requirements"][key] for doc in instances) for key in COUNTED}
    existing = {str(doc["_id"]) for doc in instances}
    report = {
        "answers": dict(answers),
        "instances": len(instances),
        "usage": stored["usage"],
        "summed": summed,
        "usage_is_the_sum": stored["usage"]
        == {**summed, "instances": len(instances), "monthly": None, "currency": None, "observed": None},
        "acknowledged_but_lost": len((admitted - deleted - unsaid) - existing),
        "deletes_said_undone_but_done": len(refused - existing - unsaid),
        "ledger_left": len(db.ledgers.find_one({"_id": ObjectId(profile)})["ledger"]),
        "definitions": sorted({doc["yml"] for doc in instances}),
    }
    log(f"usage under kill -9: { {key: value for key, value in report.items() if key != 'definitions'} }")
    service.stop()
    database.terminate()
    database.wait()
    return report


def _unknown(answer):
    """Whether a 503 says that what was asked may have taken place."""
    return answer.status == 503 and "not known" in answer.json.get("detail", "")


def _delete_answered(answer, target, deleted, unsaid, refused):
    """Record what a delete of `target` said: done (204, or 404 once an earlier one took place), not
    done (any other answer but one saying nobody knows), or nothing."""
    if _unknown(answer):
        return
    unsaid.discard(target)
    if answer.status in (204, 404):
        deleted.add(target)
        refused.discard(target)
    else:
        refused.add(target)


FLEET_TEMPLATE = "services:\n  app:\n    image: nginx:1.27\n"
FLEET_UPGRADED = FLEET_TEMPLATE.replace("1.27", "1.29") + "  sidecar:\n    image: busybox\n"


def fleet_run(count=150, log=print):
    """An upgrade of `count` instances of one blueprint, run as a job, with the service killed -9
    in its middle and started again: once the leases have passed, the profile's usage must be the
    sum of the instances, the job must say it failed, and an upgrade of those still behind must
    bring every instance up to date, usage still the sum."""
    data = os.path.join(tempfile.mkdtemp(prefix="fault-fleet-"), "data")
    database, uri = embedded.launch(data, free_port())
    service = Gunicorn(**_settings(uri, "fleet")).start()
    headers, client = {"Authorization": AUTH}, SocketClient(service.port)
    blueprint = client.post(
        "/blueprints", json={"name": "app", "blueprintType": "compose", "yml": FLEET_TEMPLATE}, headers=headers
    ).json["id"]
    caps = {"name": "fleet", "containerCap": str(4 * count), "containerDefaults": {"memory": "64Mi", "cpu": "50m"}}
    profile = client.post("/profiles", json=caps, headers=headers).json["id"]
    for index in range(count):
        body = {"name": f"i{index}", "blueprint": blueprint, "profile": profile}
        assert client.post("/instances", json=body, headers=headers).status == 201
    assert client.patch(f"/blueprints/{blueprint}", json={"yml": FLEET_UPGRADED}, headers=headers).status == 200
    started = client.post("/instances/upgrade", json={"blueprint": blueprint}, headers=headers).json
    while client.get(f"/jobs/{started['id']}", headers=headers).json["done"] < count // 10:
        time.sleep(0.02)
    service.kill()  # kill -9 of every worker, mid-upgrade
    service.start()
    time.sleep(2 * REQUEST_TIMEOUT + 1)  # the ledger's and the job's leases have passed
    client = SocketClient(service.port)
    job = client.get(f"/jobs/{started['id']}", headers=headers).json
    db = MongoClient(uri).fleet

    def counted():
        instances = list(db.instances.find({"profile": profile}, {"requirements": 1, "blueprintRev": 1}))
        summed = {key: sum(doc["requirements"][key] for doc in instances) for key in COUNTED}
        usage = client.get(f"/profiles/{profile}", headers=headers).json["usage"]
        same = usage == {**summed, "instances": len(instances), "monthly": None, "currency": None, "observed": None}
        return same, sum(doc["blueprintRev"] == 2 for doc in instances)

    after_kill, upgraded_before = counted()
    rest = client.post("/instances/upgrade", json={"blueprint": blueprint, "behind": True}, headers=headers).json
    while rest["state"] in ("queued", "running"):
        time.sleep(0.05)
        rest = client.get(f"/jobs/{rest['id']}", headers=headers).json
    after_rest, upgraded_after = counted()
    report = {
        "instances": count,
        "job_after_kill": job["state"],
        "upgraded_before_kill": upgraded_before,
        "usage_is_the_sum_after_kill": after_kill,
        "rest": rest["state"],
        "upgraded_by_the_rest": sum(one["outcome"] == "upgraded" for one in rest["report"]["results"]),
        "usage_is_the_sum_after": after_rest,
        "upgraded_after": upgraded_after,
        "ledger_left": len(db.ledgers.find_one({"_id": ObjectId(profile)})["ledger"]),
    }
    log(f"fleet upgrade under kill -9: {report}")
    service.stop()
    database.terminate()
    database.wait()
    return report


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seconds-before", type=float, default=10)
    parser.add_argument("--writers", type=int, default=4)
    args = parser.parse_args()
    report = run(args.seconds_before, writers=args.writers)
    history = history_run(writers=args.writers)
    usage = usage_run(writers=args.writers)
    fleet = fleet_run()
    print(json.dumps({"creates": report, "history": history, "usage": usage, "fleet": fleet}, indent=2, default=str))
    failed = report["lost"] or report["duplicates"] or history["missing_versions"] or history["acknowledged_but_lost"]
    failed = failed or not usage["usage_is_the_sum"] or usage["acknowledged_but_lost"] or usage["ledger_left"]
    failed = failed or not (fleet["usage_is_the_sum_after_kill"] and fleet["usage_is_the_sum_after"])
    failed = failed or fleet["upgraded_after"] != fleet["instances"] or fleet["ledger_left"]
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
