"""What the backfill of `keys` costs at 100,000 blueprints stored before them (`app/backfill.py`),
and what lists cost meanwhile: `python bench/backfill.py [count]`.

Seeds `count` blueprints without keys (as bench/scale.py seeds them, NEEDLE among them) into a
fresh embedded database, starts the service (gunicorn, two workers, as `make run` does) and
times, every 5 s, a member's plain first page and `?name=needle`, until no blueprint lacks
keys; then the same after. Prints the backfill's duration and rate, and the medians.
"""

import random
import statistics
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

from bson import ObjectId
from pymongo import MongoClient

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from app.storage import embedded  # noqa: E402
from bench import run, scale  # noqa: E402
from support.http import SocketClient, basic  # noqa: E402
from support.processes import Gunicorn  # noqa: E402


def timed(client, path, headers):
    """Milliseconds, or None for an answer other than 200."""
    started = time.perf_counter()
    r = client.get(path, headers=headers)
    return (time.perf_counter() - started) * 1000 if r.status == 200 else None


def main(count):
    database, uri = embedded.launch(tempfile.mkdtemp(prefix="bench-backfill-"))
    service = None
    try:
        blueprints = MongoClient(uri).scale.blueprints
        started = time.monotonic()
        scale.seed(blueprints, count, run.BLUEPRINT, random.Random(1), needle=True, keys=False)
        first_day = datetime.now(UTC) - timedelta(days=scale.DAYS - 1)
        print(f"seeded {count:,} blueprints without keys ({time.monotonic() - started:.0f} s)")
        admin = {"Authorization": basic(*run.ADMIN)}
        service = Gunicorn(MONGO_URI=uri, MONGO_DB="scale", ADMIN_USERNAME=run.ADMIN[0], ADMIN_PASSWORD=run.ADMIN[1],
                           LOG_LEVEL="warning", RATE_LIMIT="1000000000 per minute").start()  # fmt: skip
        started = time.monotonic()
        client = SocketClient(service.port)
        client.post("/users", json={"username": scale.MEMBER[0], "password": scale.MEMBER[1], "role": "member"},
                    headers=admin)  # fmt: skip
        member = {"Authorization": basic(*scale.MEMBER)}
        during = {"plain": [], "needle": []}
        oldest = {"keys": None, "_id": {"$gte": ObjectId("0" * 24), "$lt": ObjectId.from_datetime(first_day)}}
        while blueprints.find_one(oldest, {"_id": 1}) is not None:  # the backfill goes newest first
            during["plain"].append(timed(client, "/blueprints?limit=50", member))
            during["needle"].append(timed(client, "/blueprints?limit=50&name=needle", member))
            time.sleep(5)
        while blueprints.find_one({"keys": None}, {"_id": 1}) is not None:
            time.sleep(1)
        took = time.monotonic() - started
        print(f"backfill of {count:,}: {took:.0f} s, {count / took:.0f} blueprints/s")
        time.sleep(6)  # every worker looks again within backfill.RETRY_SECONDS
        after = {name: [timed(client, path, member) for _ in range(25)] for name, path in
                 (("plain", "/blueprints?limit=50"), ("needle", "/blueprints?limit=50&name=needle"))}  # fmt: skip
        for name, times in during.items():
            answered = [ms for ms in times if ms is not None]
            print(f"{name:7} during: median {statistics.median(answered):7.1f} ms, {len(times) - len(answered)} of "
                  f"{len(times)} not 200; after: {statistics.median(after[name]):6.1f} ms")  # fmt: skip
    finally:
        if service:
            service.stop()
        database.terminate()
        database.wait(timeout=600)  # it writes out what it holds


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 100_000)
