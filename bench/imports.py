"""Imports in `make bench`: the community Portainer catalog of the corpus (524 templates, about
600 KB), then the Dokploy, Coolify and CapRover catalogs of the corpus, each imported into the
running service as a dry run, for real, and again (every template then unchanged), timed from the
client and in the workers' CPU; then the largest import the contract allows (1,000 templates in
just under 16 MiB: native blueprints whose Compose files repeat the shared 1 KB body's services,
each copy depending on the first), as a job (it may run past a request's time limit), with the
workers' peak resident memory (VmHWM) after it."""

import json
import time

import yaml

from support import corpus
from support.http import SocketClient, basic

MAX_IMPORT_BYTES = 16 * 1024 * 1024
NAMES = {"dokploy": "Dokploy", "coolify": "Coolify", "caprover": "CapRover"}
PLATFORMS = ("coolify", "caprover")  # catalogs of YAML files (`corpus.platform_catalog`)
LARGEST_TEMPLATES = 1000
JOB_SECONDS = 600


def _import(client, auth, body, dry_run=False):
    started = time.perf_counter()
    response = client.post("/imports" + ("?dryRun=true" if dry_run else ""), json=body, headers=auth)
    elapsed = time.perf_counter() - started
    if response.status != 200:
        raise SystemExit(f"import failed: {response.status} {response.body[:300]!r}")
    return elapsed, response.json["counts"]


def _import_as_job(client, auth, body):
    """(seconds until it ended, counts) of an import run as a job (`?async=true`), as an import
    that may run past a request's time limit is made."""
    started = time.perf_counter()
    response = client.post("/imports?async=true", json=body, headers=auth)
    if response.status != 202:
        raise SystemExit(f"import failed: {response.status} {response.body[:300]!r}")
    while (job := client.get(f"/jobs/{response.json['id']}", headers=auth).json)["state"] not in ("done", "failed"):
        if time.perf_counter() - started > JOB_SECONDS:
            raise SystemExit(f"the import's job still ran after {JOB_SECONDS} s")
        time.sleep(0.2)
    if job["state"] == "failed":
        raise SystemExit(f"import failed: {job['error']}")
    return time.perf_counter() - started, job["report"]["counts"]


def largest_document(blueprint):
    """A native export of 1,000 blueprints whose body is just under 16 MiB."""
    original = yaml.safe_load(blueprint["yml"])
    per_template = (MAX_IMPORT_BYTES - 64 * 1024) // LARGEST_TEMPLATES
    definition, copy = original, 1
    while True:  # as many copies of the services (depending on the first ones) as one template's share holds
        more = {f"{name}-{copy}": service for name, service in original["services"].items()}
        candidate = {**definition, "services": {**definition["services"], **more}}
        if len(json.dumps(yaml.safe_dump(candidate))) > per_template - 512:
            break
        definition, copy = candidate, copy + 1
    text = yaml.safe_dump(definition, sort_keys=False)
    items = [
        {
            **{key: blueprint[key] for key in ("version", "description", "blueprintType")},
            "name": f"largest-{index}",
            "yml": text,
        }
        for index in range(LARGEST_TEMPLATES)
    ]
    return {"format": "native", "version": 1, "blueprints": items}


def run(server, admin, blueprint):
    client, auth = SocketClient(server.port, timeout=600), {"Authorization": basic(*admin)}
    community = corpus.portainer_catalog("lissy93-templates.json")
    platforms = {"dokploy": corpus.dokploy_catalog(), **{name: corpus.platform_catalog(name) for name in PLATFORMS}}
    catalogs = [
        ("the community Portainer catalog", "portainer", community, corpus.portainer_files(), community["templates"]),
        *((f"{NAMES[name]}'s catalog", name, document, {}, document) for name, document in platforms.items()),
    ]
    for title, fmt, document, files, templates in catalogs:
        count = len(templates)
        body = {"format": fmt, "source": f"bench/{fmt}", "document": document, "files": files}
        size = len(json.dumps(body).encode())
        print(f"\nimports: {title}, {count} templates, {size / 1024:.0f} KiB")
        for label, dry_run in (("dry run", True), ("first import", False), ("again (unchanged)", False)):
            cpu = server.worker_cpu_seconds()
            elapsed, counts = _import(client, auth, body, dry_run)
            cpu = server.worker_cpu_seconds() - cpu
            per_100 = elapsed / count * 100
            print(
                f"  {label:20} {elapsed:6.2f} s ({per_100:.2f} s per 100 templates), worker CPU {cpu:.2f} s; {counts}"
            )
    largest = {"format": "native", "source": "bench/largest", "document": largest_document(blueprint)}
    size = len(json.dumps(largest).encode())
    before = server.worker_rss_mb("VmHWM")
    elapsed, counts = _import_as_job(client, auth, largest)
    peaks = ", ".join(f"{mb:.0f} MB" for mb in server.worker_rss_mb("VmHWM"))
    print(f"  largest: {LARGEST_TEMPLATES} templates, {size / 2**20:.2f} MiB: {elapsed:.1f} s; {counts}")
    print(f"  workers' peak RSS: before {', '.join(f'{mb:.0f} MB' for mb in before)}; after {peaks}")
