"""`make bench`: the service under gunicorn on the embedded database, driven by wrk on loopback,
beside the stack's floor (bench/baseline.py) and its peer, Python-Eve (bench/eve_app.py), then
the scale scenario (bench/scale.py), admissions at 1 and 100,000 instances (bench/instances.py)
and the lists of what fits a profile (bench/fits.py, against the --against revision too); the web
page (bench/web.py), imports (bench/imports.py), the security probe's shapes (bench/probes.py) and
upgrades of 1,000 instances in one request and one at a time (bench/fleet.py).

Every throughput scenario runs for a few seconds per round, rounds interleaved with the floor's,
all bounded in time; the table gives the median round's requests/s, latency percentiles, and the
app CPU a request costs (the workers' CPU time over the round, divided by its requests).
"""

import argparse
import json
import os
import random
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

from pymongo import MongoClient

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from app.storage import embedded  # noqa: E402
from bench import conversions, environments, fits, fleet, imports, instances, probes, scale, sources, web  # noqa: E402
from support.http import SocketClient, basic  # noqa: E402
from support.processes import Gunicorn, cpu_seconds  # noqa: E402

GIT = shutil.which("git")
ADMIN = ("bench-admin", "bench-password-1")
BASIC = basic(*ADMIN)
ADMIN_HEADERS = {"Authorization": BASIC}
# ../shared/bench/, copied so that a clone elsewhere has them: a four-service Compose file of
# about 1 KB, and a profile with every cap (tests/test_bench.py keeps the copies identical).
BODIES = Path(__file__).resolve().parent / "bodies"
BLUEPRINT = json.loads((BODIES / "blueprint.json").read_text())
PROFILE = json.loads((BODIES / "profile.json").read_text())
# The shared blueprint made a template of five parameters (a version, a count, a memory limit, a
# worker setting, a generated password); a render gives three of them and fits it to a profile
# that caps what its services all declare (containers, storage: PROFILE's caps of memory and cpu
# refuse it whatever the count, since three services declare none), so that `maximize` bisects.
TEMPLATE = json.loads((BODIES / "template.json").read_text())
RENDER = {"values": {"WEB_TAG": "1.5.0", "WEB_REPLICAS": 4, "WORKER_CONCURRENCY": 4}}


def service(mongo_uri, workers, cwd=ROOT, db="bench"):
    return Gunicorn(
        "-c",
        "gunicorn.conf.py",
        "--workers",
        str(workers),
        cwd=cwd,
        MONGO_URI=mongo_uri,
        MONGO_DB=db,
        ADMIN_USERNAME=ADMIN[0],
        ADMIN_PASSWORD=ADMIN[1],
        LOG_LEVEL="warning",
        RATE_LIMIT="1000000000 per minute",
    ).start()


def beside(app, mongo_uri, workers):
    """The floor (bench/baseline.py) or the peer (bench/eve_app.py) under gunicorn, run from
    bench/ so that gunicorn does not read the service's gunicorn.conf.py."""
    return Gunicorn(
        "--workers",
        str(workers),
        "--log-level",
        "warning",
        app=app,
        cwd=ROOT / "bench",
        MONGO_URI=mongo_uri,
        BASELINE_CREDENTIALS=":".join(ADMIN),
    ).start(probe="/")


def wrk(port, method, path, auth, body, seconds, connections):
    with tempfile.NamedTemporaryFile("w", suffix=".lua", delete=False) as script:
        script.write(f"wrk.method = {json.dumps(method)}\n")
        script.write('wrk.headers["Content-Type"] = "application/json"\n')
        script.write(f'wrk.headers["Authorization"] = {json.dumps(auth)}\n')
        if body is not None:
            script.write(f"wrk.body = {json.dumps(json.dumps(body))}\n")
        script.write(
            "function done(summary, latency, requests)\n"
            "  io.write(string.format('RESULT %d %d %d %d %d\\n', summary.requests, summary.duration,\n"
            "    latency:percentile(50), latency:percentile(99),\n"
            "    summary.errors.status + summary.errors.connect + summary.errors.read\n"
            "    + summary.errors.write + summary.errors.timeout))\nend\n"
        )
    out = subprocess.run(
        [
            shutil.which("wrk"),
            "-t2",
            f"-c{connections}",
            f"-d{seconds}s",
            "-s",
            script.name,
            f"http://127.0.0.1:{port}{path}",
        ],
        capture_output=True,
        text=True,
        timeout=seconds + 30,
    )
    os.unlink(script.name)
    match = re.search(r"RESULT (\d+) (\d+) (\d+) (\d+) (\d+)", out.stdout)
    if not match:
        raise SystemExit(f"wrk failed: {out.stdout} {out.stderr}")
    requests, duration_us, p50, p99, errors = map(int, match.groups())
    return {
        "requests": requests,
        "rps": requests / (duration_us / 1e6),
        "p50_ms": p50 / 1000,
        "p99_ms": p99 / 1000,
        "errors": errors,
    }


def seed(mongo_uri, count, db):
    """`count` blueprints beside the ones the scenarios make, which `clean` removes after each run,
    so that every run (and the list page) sees a collection of the same size; made over the last
    30 days, as the scale scenario's."""
    scale.seed(MongoClient(mongo_uri)[db].blueprints, count, {**BLUEPRINT, "name": "seed"}, random.Random(7))


def seed_eve(mongo_uri, count):
    """As `seed`, stored as Eve stores what it is sent."""
    moment = datetime.now(UTC).replace(microsecond=0)
    docs = [
        {**BLUEPRINT, "name": "seed", "_created": moment, "_updated": moment, "_etag": f"{i:040x}"}
        for i in range(count)
    ]
    MongoClient(mongo_uri).eve.blueprints.insert_many(docs)


def clean(mongo_uri):
    client = MongoClient(mongo_uri)
    for db in ("bench", "against", "eve"):
        client[db].blueprints.delete_many({"name": {"$in": [BLUEPRINT["name"], TEMPLATE["name"]]}})
        client[db].profiles.delete_many({"name": PROFILE["name"]})  # the renders' profile stays
    client.baseline.items.delete_many({})


def checkout(revision):
    """A worktree of `revision` (any git revision), in a temporary folder."""
    folder = tempfile.mkdtemp(prefix="bench-against-")
    subprocess.run(
        [GIT, "-C", str(ROOT), "worktree", "add", "--detach", folder, revision], check=True, capture_output=True
    )
    return folder


def scenarios(port):
    """What each scenario sends to the service on `port`, with the resources they read made there."""
    client = SocketClient(port)
    for _ in range(50):  # a worker may have looked the admin up before another made it (USER_CACHE_SECONDS)
        made = client.post("/tokens", headers=ADMIN_HEADERS)
        if made.status == 201:
            break
        time.sleep(0.1)
    bearer = "Bearer " + made.json["token"]
    blueprint = client.post("/blueprints", json={**BLUEPRINT, "name": "seed"}, headers=ADMIN_HEADERS).json
    template = client.post("/blueprints", json={**TEMPLATE, "name": "seed"}, headers=ADMIN_HEADERS).json
    capped = {"name": "renders", "containerCap": PROFILE["containerCap"], "storageCap": PROFILE["storageCap"]}
    profile = client.post("/profiles", json=capped, headers=ADMIN_HEADERS).json["id"]
    render = {**RENDER, "profile": profile}
    rendering = f"/blueprints/{template['id']}/render"
    return {
        "POST /blueprints (Basic)": ("POST", "/blueprints", BASIC, BLUEPRINT),
        "POST /blueprints (Bearer)": ("POST", "/blueprints", bearer, BLUEPRINT),
        "POST /blueprints, OWNER (Basic)": ("POST", "/blueprints", BASIC, {**BLUEPRINT, "entitlementType": "OWNER"}),
        "POST /profiles (Basic)": ("POST", "/profiles", BASIC, PROFILE),
        "GET /blueprints/{id} (Basic)": ("GET", f"/blueprints/{blueprint['id']}", BASIC, None),
        "GET /blueprints?limit=50 (Basic)": ("GET", "/blueprints?limit=50", BASIC, None),
        "POST /blueprints, template (Basic)": ("POST", "/blueprints", BASIC, TEMPLATE),
        "POST render, fit (Basic)": ("POST", rendering, BASIC, render),
        "POST render, maximize (Basic)": ("POST", rendering, BASIC, {**render, "maximize": "WEB_REPLICAS"}),
    }


def eve_scenarios(port):
    """The scenarios Eve serves, as an Eve user would send them."""
    blueprint = SocketClient(port).post("/blueprints", json={**BLUEPRINT, "name": "seed"}, headers=ADMIN_HEADERS)
    return {
        "POST /blueprints (Basic)": ("POST", "/blueprints", BASIC, BLUEPRINT),
        "GET /blueprints/{id} (Basic)": ("GET", f"/blueprints/{blueprint.json['_id']}", BASIC, None),
        "GET /blueprints?limit=50 (Basic)": ("GET", "/blueprints?max_results=50", BASIC, None),
    }


def print_row(name, r, base):
    print(
        f"{name:34} {r['rps']:7.0f} {r['p50_ms']:7.1f} {r['p99_ms']:7.1f} {r['errors']:6d} "
        f"{r['rps'] / base['rps']:8.2f} {r['p99_ms'] / base['p99_ms']:8.2f} {r['cpu_ms']:7.2f} {r['db_ms']:7.2f}"
    )


def median_round(results):
    return {
        **{key: statistics.median(r[key] for r in results) for key in ("rps", "p50_ms", "p99_ms", "cpu_ms", "db_ms")},
        "errors": sum(r["errors"] for r in results),
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seconds", type=int, default=3, help="per scenario and round")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--connections", type=int, default=32)
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 2)
    parser.add_argument("--sizes", default="1200,100000", help="the scale scenario's two sizes; 0 skips it")
    parser.add_argument("--seed", type=int, default=1000, help="blueprints in the database during the scenarios")
    parser.add_argument("--only", help="run only scenarios whose name contains one of these (comma-separated)")
    parser.add_argument("--against", metavar="REVISION", help="also run each scenario on this git revision")
    args = parser.parse_args()
    started = time.monotonic()
    data = tempfile.mkdtemp(prefix="bench-")
    database, mongo_uri = embedded.launch(os.path.join(data, "data"))
    seed(mongo_uri, args.seed, "bench")  # before the service starts: it reads the collection's floor then
    seed_eve(mongo_uri, args.seed)
    servers = [
        service(mongo_uri, args.workers),
        *(beside(app, mongo_uri, args.workers) for app in ("baseline:app", "eve_app:app")),
    ]
    worktree = None
    try:
        app, floor, peer = servers
        targets = {app: scenarios(app.port), peer: eve_scenarios(peer.port)}
        peers = [("Eve", peer)]
        if args.against:  # its own database: its indexes are not the same
            worktree = checkout(args.against)
            seed(mongo_uri, args.seed, "against")
            servers.append(service(mongo_uri, args.workers, cwd=worktree, db="against"))
            targets[servers[-1]] = scenarios(servers[-1].port)
            peers.append((args.against[:8], servers[-1]))
        parts = args.only.split(",") if args.only else []
        names = [name for name in targets[app] if not parts or any(part in name for part in parts)]
        sections = {
            "web",
            "imports",
            "conversions",
            "probes",
            "scale",
            "fits",
            "instances",
            "fleet",
            "sources",
            "environments",
        }
        if not names and not sections & set(parts):
            raise SystemExit(f"no scenario name contains {args.only!r}")
        results = {(server, name): [] for server in targets for name in names if name in targets[server]}
        floors = []
        for _ in range(args.rounds if names else 0):  # A B C A B C: the service, its peers and the floor take turns
            for name in names:
                runs = [
                    (server, targets[server][name], results[server, name])
                    for server in targets
                    if name in targets[server]
                ]
                for server, target, results_of in [*runs, (floor, ("POST", "/items", BASIC, BLUEPRINT), floors)]:
                    clean(mongo_uri)
                    scale.settle(app.port)
                    cpu, db_cpu = server.worker_cpu_seconds(), cpu_seconds(database.pid)
                    result = wrk(server.port, *target, args.seconds, args.connections)
                    done = max(result["requests"], 1)
                    result["cpu_ms"] = (server.worker_cpu_seconds() - cpu) * 1000 / done
                    result["db_ms"] = (cpu_seconds(database.pid) - db_cpu) * 1000 / done
                    results_of.append(result)
        if names:
            base = median_round(floors)
            print(
                f"\n{'scenario':34} {'req/s':>7} {'p50 ms':>7} {'p99 ms':>7} {'errors':>6} {'rps/base':>8}"
                f" {'p99/base':>8} {'CPU ms':>7} {'DB ms':>7}"
            )
            print_row("baseline POST (Flask + pymongo)", base, base)
            for name in names:
                print_row(name, median_round(results[app, name]), base)
            for label, other in peers:
                print(f"\n{label}: its rounds, then the median of the per-round ratios (this service / {label})")
                for name in names:
                    if (other, name) not in results:
                        continue
                    print_row(f"{name} [{label}]", median_round(results[other, name]), base)
                    pairs = list(zip(results[app, name], results[other, name], strict=True))
                    for key in ("rps", "p99_ms", "cpu_ms", "db_ms"):
                        ratios = [ours[key] / theirs[key] for ours, theirs in pairs]
                        listed = " ".join(f"{r:.3f}" for r in ratios)
                        print(f"  {key:7} this / {label} per round: {listed}; median {statistics.median(ratios):.3f}")
        rss = app.worker_rss_mb()
        print(f"\nworker RSS after the run: {', '.join(f'{mb:.0f} MB' for mb in rss)}")
        if not parts or "web" in parts:
            web.run(app.port, ADMIN, PROFILE, BLUEPRINT)
        if not parts or "imports" in parts:
            imports.run(app, ADMIN, BLUEPRINT)
        if not parts or "conversions" in parts:
            print("\nrenders for Kubernetes beside Compose renders, CPU in this process (medians)")
            conversions.run(BLUEPRINT)
        if not parts or "sources" in parts:
            sources.run()
        if not parts or "probes" in parts:
            probes.run([("this", app), *([(args.against[:8], servers[-1])] if args.against else [])], ADMIN)
        for server in servers:
            server.stop()
        servers = []

        def start(db, cwd):
            return service(mongo_uri, args.workers, cwd=cwd or ROOT, db=db)

        if args.sizes != "0":
            sizes = tuple(int(n) for n in args.sizes.split(","))
            if not parts or "scale" in parts:
                scale.run(mongo_uri, ADMIN, BLUEPRINT, PROFILE, sizes=sizes, against=worktree)
            if not parts or "instances" in parts:
                instances.run(mongo_uri, ADMIN, BLUEPRINT, start, against=worktree)
            if not parts or "fits" in parts:
                fits.run(mongo_uri, ADMIN, BLUEPRINT, start, sizes=sizes, against=worktree)
        if not parts or "fleet" in parts:
            fleet.run(mongo_uri, ADMIN, BLUEPRINT, start)
        if not parts or "environments" in parts:
            environments.run(mongo_uri)
        print(f"the benchmark took {time.monotonic() - started:.0f} s")
    finally:
        for server in servers:
            server.stop()
        database.terminate()
        database.wait(timeout=600)  # it writes out what it holds
        if worktree:
            subprocess.run([GIT, "-C", str(ROOT), "worktree", "remove", "--force", worktree], check=False)


if __name__ == "__main__":
    main()
