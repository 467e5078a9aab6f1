"""The web page in `make bench`: how soon the catalog is usable, and what the page weighs.

Headless Chromium (as the page's tests use it) opens the catalog of the running service, signed in
as the bench's admin, who reads every seeded blueprint: a page of 50. Each visit is a fresh
navigation (the first with an empty cache, the rest revalidating the page's files as a returning
visitor does); the times come from the browser's own performance timeline, from navigation start:
`catalog-ready` is the mark the page sets once the 50 entries are on screen and usable,
`catalog-fitted` once every entry's fit badge against a chosen profile has come in (50 calls of
/blueprints/{id}/fit). The weight is what the page's own files decode to, and what the API sent.
Then the worst page a catalog can show: 50 blueprints whose definitions are as large as the
contract allows (256 KiB each, Compose files of many services), the newest, so the first page
holds all of them (the API sends whole blueprints: about 14.5 MiB for that page).
"""

import itertools
import json
import statistics
import tempfile
import textwrap
from pathlib import Path

import yaml
from selenium.webdriver.support.ui import WebDriverWait

from app.model.yamlguard import MAX_BYTES
from support.browser import chromium
from support.http import SocketClient, basic

TIMINGS = """
const nav = performance.getEntriesByType('navigation')[0];
const mark = (name) => { const m = performance.getEntriesByName(name)[0]; return m ? m.startTime : null; };
const files = [nav, ...performance.getEntriesByType('resource')];
const own = files.filter((e) => e === nav || e.name.includes('/web/'));
const api = files.filter((e) => e !== nav && !e.name.includes('/web/'));
const sum = (list, key) => list.reduce((total, e) => total + (e[key] || 0), 0);
return {ready: mark('catalog-ready'), fitted: mark('catalog-fitted'), loaded: nav.domContentLoadedEventEnd,
        page_bytes: sum(own, 'decodedBodySize'), page_transferred: sum(own, 'transferSize'),
        api_bytes: sum(api, 'decodedBodySize'), api_calls: api.length};
"""


def visit(browser, url, mark):
    browser.get("about:blank")
    browser.get(url)
    WebDriverWait(browser, 30).until(
        lambda b: b.execute_script(f"return performance.getEntriesByName('{mark}').length")
    )
    return browser.execute_script(TIMINGS)


def largest(body):
    """`body` with a Compose definition of its services copied under new names, as many copies as
    fit in MAX_BYTES, each copy depending on its own siblings, beside the body's top-level
    volumes: a file the service (and Docker Compose) accepts. Each copy is dumped once, indented
    under `services:`."""
    definition = yaml.safe_load(body["yml"])
    services, tail = definition["services"], yaml.safe_dump({"volumes": definition.get("volumes", {})})
    text = "services:\n"
    for copy in itertools.count():
        copies = {f"{name}-{copy}": {**service, **_siblings(service, copy)} for name, service in services.items()}
        more = textwrap.indent(yaml.safe_dump(copies, sort_keys=False), "  ")
        if len((text + more + tail).encode()) > MAX_BYTES:
            return {**body, "yml": text + tail}
        text += more


def _siblings(service, copy):
    """The service's `depends_on` naming the services of its own copy."""
    return {"depends_on": [f"{name}-{copy}" for name in service["depends_on"]]} if "depends_on" in service else {}


def run(port, admin, profile, body, repetitions=10):
    client = SocketClient(port)
    auth = {"Authorization": basic(*admin)}
    token = client.post("/tokens", headers=auth).json
    me = client.get("/users/me", headers=auth).json
    chosen = client.post("/profiles", json={**profile, "name": "web-bench"}, headers=auth).json
    base = f"http://127.0.0.1:{port}/"
    browser = chromium(Path(tempfile.mkdtemp(prefix="bench-web-")), width=1280, height=900)
    try:
        browser.get(base + "web/icon.svg")  # the origin's session storage holds the token, as after a sign-in
        session = {"token": token["token"], "expiresAt": token["expiresAt"], "user": me}
        browser.execute_script("sessionStorage.setItem('catalog.session', arguments[0])", json.dumps(session))
        print(f"\nweb page: the catalog, signed in as {admin[0]}, 50 entries, {repetitions} visits each")
        print("  (ms from navigation start; the first visit with an empty cache)")
        seen = {}
        for label, url, mark in (
            ("catalog", base + "#/", "catalog-ready"),
            ("catalog with fit badges", f"{base}#/?profile={chosen['id']}", "catalog-fitted"),
        ):
            visits = seen[label] = [visit(browser, url, mark) for _ in range(repetitions)]
            ready = [v["ready"] for v in visits[1:]]
            line = f"  {label:25} usable: first visit {visits[0]['ready']:.0f}, "
            line += f"then median {statistics.median(ready):.0f}, worst {max(ready):.0f}"
            if mark == "catalog-fitted":
                fitted = [v["fitted"] for v in visits[1:]]
                line += f"; every badge in: median {statistics.median(fitted):.0f}, worst {max(fitted):.0f}"
            print(line)
        cold, badges = seen["catalog"][0], seen["catalog with fit badges"][0]
        print(
            f"  page weight {cold['page_bytes'] / 1024:.1f} KiB, transferred on the first visit "
            f"{cold['page_transferred'] / 1024:.1f} KiB; the API sent {cold['api_bytes'] / 1024:.1f} KiB "
            f"in {cold['api_calls']} calls ({badges['api_bytes'] / 1024:.1f} KiB in {badges['api_calls']} "
            "with badges)"
        )
        large = largest(body)
        made = [
            client.post("/blueprints", json={**large, "name": f"web-bench-large-{i}"}, headers=auth).json["id"]
            for i in range(50)
        ]
        visits = [visit(browser, base + "#/", "catalog-ready") for _ in range(repetitions)]
        ready = [v["ready"] for v in visits[1:]]
        each_kib = len(large["yml"].encode()) / 1024
        print(
            f"  {'catalog of 50 at 256 KiB':25} usable: first visit {visits[0]['ready']:.0f}, "
            f"then median {statistics.median(ready):.0f}, worst {max(ready):.0f}; the API sent "
            f"{visits[0]['api_bytes'] / 2**20:.1f} MiB (definitions of {each_kib:.0f} KiB)"
        )
        for id_ in made:
            client.delete(f"/blueprints/{id_}", headers=auth)
    finally:
        browser.quit()
        client.delete(f"/profiles/{chosen['id']}", headers=auth)
