"""Delivery and observation on a real Docker Engine (`make bench --only environments`; as root with
Debian's docker.io and busybox-static, else skipped saying why), the app in this process on the
embedded database:
- an admission's CPU in its request's thread with an environment and without one, interleaved
  (the delivery is a job in a thread of its own);
- the time from an admission to its delivery `applied` (Docker Compose's `up --wait` of one
  container, one admission at a time);
- one observation of an engine running 100 instances (and the engine's reading alone): its time,
  and per instance;
- the git delivery of 100 admissions to one repository (over ssh, Debian's sshd), ten admitted at
  once: how long until every commit landed, how many deliveries a moved branch failed, the commits."""

import shutil
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

from app.environments.storage import store as environments
from app.joins import observation
from support.apps import make_app
from support.docker_engine import IMAGE, Engine, why_not
from support.git_servers import Repository, SshGit
from support.http import FlaskClient
from support.jobs import all_ended, ended

WEB = f"services:\n  web:\n    image: {IMAGE}\n    command: [sleep, '86400']\n    init: true\n"
ADMISSIONS = 20
OBSERVED = 100
AT_ONCE = 10  # deliveries running together while the 100 are made
ROUNDS = 5


def _setup(client, environment):
    """The environment registered, a roomy profile naming it and a blueprint: an admission's body
    but its name (and its environment, given where wanted)."""
    assert client.post("/environments", json={**environment, "interval": 3600}, user="admin").status == 201
    room = {"name": "bench", "memoryCap": "64Gi", "cpuCap": "64", "containerCap": "1000"}
    room["containerDefaults"] = {"memory": "16Mi", "cpu": "50m"}
    profile = client.post("/profiles", json=room, user="alice").json
    named = {"environments": [environment["name"]]}
    assert client.patch(f"/profiles/{profile['id']}", json=named, user="admin").status == 200
    blueprint = client.post("/blueprints", json={"name": "web", "blueprintType": "compose", "yml": WEB}, user="alice")
    return {"blueprint": blueprint.json["id"], "profile": profile["id"]}


def _admitted(client, body):
    """(the answer, the CPU seconds of the request's thread)."""
    started = time.thread_time()
    made = client.post("/instances", json=body, user="alice")
    spent = time.thread_time() - started
    assert made.status == 201, made.json
    return made.json, spent


def run(mongo_uri):
    if reason := why_not():
        print(f"\nenvironments: skipped ({reason})")
        return
    engine = Engine().start()
    try:
        engine.build_image()
        app = make_app("socket", mongo_uri, ENVIRONMENT_SOCKETS=(str(engine.socket),), DELIVERY_SECONDS=120)
        client = FlaskClient(app)
        base = _setup(client, {"name": "engine", "kind": "docker", "endpoint": f"unix://{engine.socket}"})
        cpu = {"with an environment": [], "without": []}
        to_applied = []
        for index in range(ADMISSIONS):  # interleaved: one of each, then the next pair
            _, spent = _admitted(client, {**base, "name": f"plain-{index}"})
            cpu["without"].append(spent)
            started = time.monotonic()
            made, spent = _admitted(client, {**base, "name": f"shop-{index}", "environment": "engine"})
            cpu["with an environment"].append(spent)
            assert ended(client, made["delivery"]["job"])["report"]["state"] == "applied"
            to_applied.append(time.monotonic() - started)
        print(f"\nenvironments: an admission's CPU in its request's thread, median of {ADMISSIONS} (embedded database)")
        for label, spent in cpu.items():
            print(f"  {label:22} {statistics.median(spent) * 1000:7.2f} ms")
        ratio = statistics.median(cpu["with an environment"]) / statistics.median(cpu["without"])
        print(f"  with / without: {ratio:.2f}")
        print(
            f"  admission to applied (compose up --wait, one container): median {statistics.median(to_applied):.2f} s,"
            f" most {max(to_applied):.2f} s"
        )
        for start in range(ADMISSIONS, OBSERVED, AT_ONCE):
            jobs = [
                _admitted(client, {**base, "name": f"shop-{index}", "environment": "engine"})[0]["delivery"]["job"]
                for index in range(start, min(start + AT_ONCE, OBSERVED))
            ]
            for job in jobs:
                report = ended(client, job)["report"]
                assert report["state"] == "applied", report
        with app.app_context():
            environment = environments.named("engine")
            readings, observations = [], []
            for _ in range(ROUNDS):
                started = time.monotonic()
                observation.engine.listing(environment)
                readings.append(time.monotonic() - started)
                started = time.monotonic()
                observation.observe(environment)
                observations.append(time.monotonic() - started)
            counted = environments.named("engine")["state"]["instances"]
        observed = statistics.median(observations)
        print(f"  one observation of {OBSERVED} instances ({counted}), median of {ROUNDS}: {observed:.3f} s,")
        print(
            f"    {observed / OBSERVED * 1000:.2f} ms an instance; the engine's reading alone"
            f" {statistics.median(readings):.3f} s"
        )
        all_ended()
        _git_deliveries(mongo_uri)
    finally:
        engine.stop()


def _git_deliveries(mongo_uri):
    with tempfile.TemporaryDirectory(prefix="bench-git-") as folder, SshGit(Path(folder) / "sshd") as sshd:
        repository = Repository(Path(folder), "gitops")
        repository.commit("start", {"README.md": "desired state\n"})
        app = make_app("socket", mongo_uri, ENVIRONMENT_HOSTS=(f"127.0.0.1:{sshd.port}",), ENVIRONMENT_PRIVATE=True)
        client = FlaskClient(app)
        environment = {"name": "gitops", "kind": "git", "url": sshd.url(repository), "ref": "main"}
        environment |= {"deployKey": sshd.deploy_key, "knownHosts": sshd.known_hosts.read_text()}
        base = {**_setup(client, environment), "environment": "gitops"}
        started, states = time.monotonic(), []
        for start in range(0, OBSERVED, AT_ONCE):
            jobs = [
                _admitted(client, {**base, "name": f"app-{index}"})[0]["delivery"]["job"]
                for index in range(start, start + AT_ONCE)
            ]
            states += [ended(client, job)["report"]["state"] for job in jobs]
        took = time.monotonic() - started
        counted = [shutil.which("git"), "-C", str(repository.bare), "rev-list", "--count", "main"]
        commits = int(subprocess.run(counted, capture_output=True, text=True, check=True).stdout) - 1
        failed = states.count("failed")
        print(
            f"  git: {OBSERVED} admissions, {AT_ONCE} at once, delivered in {took:.1f} s"
            f" ({took / OBSERVED:.2f} s each);"
        )
        print(
            f"    {commits} commits, {failed} deliveries failed for a branch that kept moving (the observation retries)"
        )
        all_ended()
