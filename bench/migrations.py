"""What the migrations cost at start-up: `python bench/migrations.py [count]`.

Seeds `count` blueprints as the first versions stored them (no keys, no `requirements`, no
`updatedBy`; as bench/scale.py draws them, with the shared 1 KB body) into a fresh embedded
database, starts the service as `make run` does (gunicorn, two workers; its master migrates
before they start), and times how long until it answers `/readyz`, printing the master's lines of
progress as they come; then the same start on the migrated database. Prints the database's peak
resident memory too.
"""

import random
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

from pymongo import MongoClient

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from app.storage import embedded, ids, pages  # noqa: E402
from bench import run, scale  # noqa: E402
from support.processes import Gunicorn  # noqa: E402

EARLIER = ("keys", "requirements", "updatedBy")  # what the first versions did not store


def seed_earlier(blueprints, count, rng):
    end = datetime.now(UTC)
    for start in range(0, count, 5000):
        batch = []
        for _ in range(min(5000, count - start)):
            moment = end - timedelta(seconds=rng.uniform(0, scale.DAYS * 86400))
            doc = scale.blueprint(run.BLUEPRINT, moment.replace(microsecond=moment.microsecond // 1000 * 1000), rng)
            batch.append({key: value for key, value in doc.items() if key not in EARLIER})
        blueprints.insert_many(batch, ordered=False)
    pages.lower_floor(blueprints, ids.ms_of(end - timedelta(days=scale.DAYS)))


def started(uri, log_path):
    """Seconds from starting gunicorn until `/readyz` answers, and the lines its master logged
    about migrations."""
    began = time.monotonic()
    with open(log_path, "w") as stderr:
        service = Gunicorn(stderr=stderr, MONGO_URI=uri, MONGO_DB="migrations", LOG_LEVEL="info").start(timeout=3600)
    took = time.monotonic() - began
    service.stop()
    return took, [line for line in Path(log_path).read_text().splitlines() if "migrat" in line]


def peak_mb(pid):
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM"):
            return int(line.split()[1]) // 1024
    return None


def main(count):
    folder = tempfile.mkdtemp(prefix="bench-migrations-")
    database, uri = embedded.launch(folder + "/data")
    try:
        blueprints = MongoClient(uri).migrations.blueprints
        began = time.monotonic()
        seed_earlier(blueprints, count, random.Random(1))
        print(f"seeded {count:,} blueprints as the first versions stored them ({time.monotonic() - began:.0f} s)")
        took, lines = started(uri, folder + "/first.log")
        print("\n".join(lines))
        print(
            f"start-up with the migrations: {took:.1f} s ({count / took:.0f} blueprints/s), "
            f"the database's peak memory {peak_mb(database.pid)} MB"
        )
        assert blueprints.find_one({"keys": None}, {"_id": 1}) is None
        took, lines = started(uri, folder + "/second.log")
        print(f"start-up with nothing to migrate: {took:.1f} s; {len(lines)} lines about migrations")
    finally:
        database.terminate()
        database.wait(timeout=600)


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 100_000)
