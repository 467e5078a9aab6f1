"""`make bench`: the service under gunicorn on the embedded database, driven by wrk on loopback.

Every scenario runs for a few seconds per round, rounds interleaved, all bounded in time; the
table gives the median round's requests/s and latency percentiles.
"""
import argparse
import base64
import http.client
import json
import os
import re
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
ADMIN = ("bench-admin", "bench-password-1")
BASIC = "Basic " + base64.b64encode(":".join(ADMIN).encode()).decode()
BLUEPRINT = {"name": "bench", "version": "1.0", "blueprintType": "compose",
             "yml": "services:\n  web:\n    image: nginx\n", "entitlementType": "PUBLIC"}
PROFILE = {"name": "bench", "memoryCap": "1Gi", "cpuCap": "500m", "containerCap": 4, "storageCap": "10"}


def free_port():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def call(port, method, path, body=None, auth=BASIC):
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    headers = {"Authorization": auth, "Content-Type": "application/json"}
    conn.request(method, path, body=json.dumps(body) if body is not None else None, headers=headers)
    r = conn.getresponse()
    return r.status, json.loads(r.read() or "null")


def wait_for(port, process, timeout=60):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise SystemExit("the server exited during start-up")
        try:
            call(port, "GET", "/users/me")
            return
        except OSError:
            time.sleep(0.2)
    raise SystemExit("the server did not start")


class Service:
    """The service as `make run` starts it, on a database of its own."""

    def __init__(self, mongo_uri, workers):
        self.port = free_port()
        env = {**os.environ, "MONGO_URI": mongo_uri, "MONGO_DB": "bench", "PORT": str(self.port),
               "WEB_CONCURRENCY": str(workers), "ADMIN_USERNAME": ADMIN[0], "ADMIN_PASSWORD": ADMIN[1],
               "LOG_LEVEL": "warning"}
        gunicorn = Path(sys.executable).with_name("gunicorn")
        self.process = subprocess.Popen([str(gunicorn), "-c", "gunicorn.conf.py", "wsgi:app"], cwd=ROOT, env=env)
        wait_for(self.port, self.process)

    def stop(self):
        self.process.send_signal(signal.SIGTERM)
        self.process.wait(timeout=60)


def wrk(port, method, path, auth, body, seconds, connections):
    with tempfile.NamedTemporaryFile("w", suffix=".lua", delete=False) as script:
        script.write(f"wrk.method = {json.dumps(method)}\n")
        script.write('wrk.headers["Content-Type"] = "application/json"\n')
        script.write(f'wrk.headers["Authorization"] = {json.dumps(auth)}\n')
        if body is not None:
            script.write(f"wrk.body = {json.dumps(json.dumps(body))}\n")
        script.write("function done(summary, latency, requests)\n"
                     "  io.write(string.format('RESULT %d %d %d %d %d\\n', summary.requests, summary.duration,\n"
                     "    latency:percentile(50), latency:percentile(99),\n"
                     "    summary.errors.status + summary.errors.connect + summary.errors.read\n"
                     "    + summary.errors.write + summary.errors.timeout))\nend\n")
    out = subprocess.run([shutil.which("wrk"), "-t2", f"-c{connections}", f"-d{seconds}s", "-s", script.name,
                          f"http://127.0.0.1:{port}{path}"], capture_output=True, text=True, timeout=seconds + 30)
    os.unlink(script.name)
    match = re.search(r"RESULT (\d+) (\d+) (\d+) (\d+) (\d+)", out.stdout)
    if not match:
        raise SystemExit(f"wrk failed: {out.stdout} {out.stderr}")
    requests, duration_us, p50, p99, errors = map(int, match.groups())
    return {"rps": requests / (duration_us / 1e6), "p50_ms": p50 / 1000, "p99_ms": p99 / 1000, "errors": errors}


def median_round(results):
    best = sorted(results, key=lambda r: r["rps"])[len(results) // 2]
    return {**best, "rps": statistics.median(r["rps"] for r in results)}


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seconds", type=int, default=5, help="per scenario and round")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--connections", type=int, default=32)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--only", help="run only scenarios whose name contains this")
    args = parser.parse_args()

    sys.path.insert(0, str(ROOT))
    from app import embedded

    data = tempfile.mkdtemp(prefix="bench-")
    mongo_uri = embedded.start(os.path.join(data, "data"))
    service = Service(mongo_uri, args.workers)
    try:
        port = service.port
        _, token = call(port, "POST", "/tokens")
        bearer = f"Bearer {token['token']}"
        _, blueprint = call(port, "POST", "/blueprints", BLUEPRINT)
        scenarios = {
            "POST /blueprints (Basic)": ("POST", "/blueprints", BASIC, BLUEPRINT),
            "POST /blueprints (Bearer)": ("POST", "/blueprints", bearer, BLUEPRINT),
            "POST /profiles (Basic)": ("POST", "/profiles", BASIC, PROFILE),
            "GET /blueprints/{id} (Basic)": ("GET", f"/blueprints/{blueprint['id']}", BASIC, None),
            "GET /blueprints/{id} (Bearer)": ("GET", f"/blueprints/{blueprint['id']}", bearer, None),
            "GET /users/me (Basic)": ("GET", "/users/me", BASIC, None),
            "GET /users/me (Bearer)": ("GET", "/users/me", bearer, None),
        }
        if args.only:
            scenarios = {k: v for k, v in scenarios.items() if args.only in k}
        results = {name: [] for name in scenarios}
        for _ in range(args.rounds):
            for name, (method, path, auth, body) in scenarios.items():
                results[name].append(wrk(port, method, path, auth, body, args.seconds, args.connections))
        print(f"\n{'scenario':34} {'req/s':>8} {'p50 ms':>8} {'p99 ms':>8} {'errors':>7}")
        for name, rounds in results.items():
            r = median_round(rounds)
            print(f"{name:34} {r['rps']:8.0f} {r['p50_ms']:8.1f} {r['p99_ms']:8.1f} {r['errors']:7d}")
    finally:
        service.stop()
        embedded.stop()


if __name__ == "__main__":
    main()
