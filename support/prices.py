"""What every template of the corpus costs a month at a profile's defaults: each catalog imported
and each Compose file and manifest created as a user would, then fitted through the API to a
profile with no caps and the container defaults below, at the example price sheet. `make prices`
writes docs/prices.md from it; tests/test_prices.py keeps that file what this computes."""

import statistics
import sys
from pathlib import Path

from support import corpus
from support.apps import embedded_database, make_app
from support.http import FlaskClient, create
from support.imports import imported

SHEET = "cpu=20,memoryGiB=5,storageGiB=0.1,currency=EUR"
DEFAULTS = {"memory": "256Mi", "cpu": "250m"}
DOCUMENT = Path(__file__).resolve().parents[1] / "docs" / "prices.md"


def _catalogs():
    """(source, format, document, files) of each catalog of the corpus."""
    files = corpus.portainer_files()
    for catalog in ("portainer-templates-v3.json", "lissy93-templates.json"):
        yield f"Portainer: {catalog}", "portainer", corpus.portainer_catalog(catalog), files
    yield "OpenShift templates", "openshift", list(corpus.openshift_templates().values()), None
    yield "Dokploy templates", "dokploy", corpus.dokploy_catalog(), None
    yield "Coolify templates", "coolify", corpus.platform_catalog("coolify"), None
    yield "CapRover one-click apps", "caprover", corpus.platform_catalog("caprover"), None


def _files(kind):
    return sorted(path for path in (corpus.folder() / kind).glob("*.yml") if not path.stem.startswith("invalid-"))


def priced():
    """{source: [(template, type, monthly on its own target, monthly on a cluster or None)]}, on an
    embedded database of its own (on mongomock it takes three times as long)."""
    with embedded_database() as uri:
        return _priced(FlaskClient(make_app("socket", uri, PRICES=SHEET, RATE_LIMIT="1000000 per minute")))


def _priced(api):
    profile = create(api, "profiles", name="defaults", containerDefaults=DEFAULTS).json["id"]
    made = {}
    for source, fmt, document, files in _catalogs():
        report = (
            imported(api, fmt, document, source=source, files=files)
            if files
            else imported(api, fmt, document, source=source)
        )
        made[source] = [(r["title"], r["id"]) for r in report["results"] if r["outcome"] == "created"]
    for kind, title in (("compose", "Compose files"), ("kubernetes", "Kubernetes manifests")):
        made[title] = [
            (path.stem, create(api, "blueprints", name=path.stem, blueprintType=kind, yml=path.read_text()).json["id"])
            for path in _files(kind)
        ]

    def cost(blueprint_id, blueprint_type):
        own = api.get(f"/blueprints/{blueprint_id}/fit?profile={profile}", user="alice").json["cost"]
        cluster = None
        if blueprint_type == "compose":
            on = api.get(f"/blueprints/{blueprint_id}/fit?profile={profile}&target=kubernetes", user="alice").json
            cluster = on["cost"] and on["cost"]["monthly"]
        return own and own["monthly"], cluster

    found = {}
    for source, blueprints in made.items():
        rows = []
        for name, blueprint_id in blueprints:
            kind = api.get(f"/blueprints/{blueprint_id}", user="alice").json["blueprintType"]
            kind = "compose" if kind in ("compose", "docker-compose") else kind
            rows.append((name, kind, *cost(blueprint_id, kind)))
        found[source] = sorted(rows, key=lambda row: row[0].casefold())
    return found


def _money(amount):
    return "unknown" if amount is None else f"{amount:,.2f}"


def document(found):
    """docs/prices.md: a summary per source, then every template."""
    lines = [
        "# What the corpus's templates cost",
        "",
        "Every template of the corpus this service is tested with (the catalogs of Portainer, OpenShift, Dokploy,",
        "Coolify and CapRover, and the Compose files and Kubernetes manifests people publish), imported or created",
        "as a user would, then fitted to a profile with no caps whose container defaults are 256 MiB and 0.25 CPU,",
        f"at the price sheet `PRICES={SHEET}` (a month). `make prices` writes this file; a test keeps it current.",
        "",
        "*Own target* is where the blueprint renders by default: Docker Compose for a Compose one, where only",
        "`storage_opt` counts as storage; *on a cluster* is a Compose blueprint converted for Kubernetes, each named",
        "volume a claim of 1 GiB. *Unknown*: an amount that a price applies to waits for a value (a variable",
        "without a default), so no cost is said.",
        "",
        "| source | templates | priced | median | most |",
        "|---|---|---|---|---|",
    ]
    for source, rows in found.items():
        known = [row[2] for row in rows if row[2] is not None]
        middle = _money(statistics.median(known)) if known else "-"
        most = max(rows, key=lambda row: row[2] or 0) if known else None
        lines.append(
            f"| {source} | {len(rows)} | {len(known)} | {middle} | "
            f"{f'{_money(most[2])} ({most[0]})' if most else '-'} |"
        )
    for source, rows in found.items():
        lines += ["", f"## {source}", "", "| template | type | own target | on a cluster |", "|---|---|---|---|"]
        for name, kind, own, cluster in rows:
            shown = name.replace("|", "\\|")
            lines.append(f"| {shown} | {kind} | {_money(own)} | {'' if kind != 'compose' else _money(cluster)} |")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    DOCUMENT.write_text(document(priced()))
    sys.stdout.write(f"wrote {DOCUMENT}\n")
