"""The security probe's shapes in `make bench` (docs/security.md): what one request of an attacker
costs the service, beside what the same request without aliases costs (the floor), on this
service and, with --against, on that revision in turns (A B A B).

- an OpenShift import of six templates as YAML text, each its own tree of aliases (5 levels of
  10: 100,000 leaves), 3 KB in all;
- a Kubernetes definition of 50 KB whose aliases repeat one 10 KB string (100 MB expanded),
  stored, then exported as an OpenShift Template;
- the largest export the bound lets through: one 1,000-character string aliased 250 times, and
  its floor, the same definition written out without aliases.

Each request's time from the client, its status and the size of its answer; the workers' peak
resident memory (VmHWM) after all of them."""

import statistics
import time

import yaml

from support import probes
from support.http import SocketClient, basic

ROUNDS = 3
BOUNDED = (
    "apiVersion: v1\nkind: Pod\nmetadata:\n  name: bounded\n  annotations:\n    a: &s {text}\nspec:\n"
    "  containers:\n  - name: app\n    image: busybox:1.36\n    args: [{aliases}]\n"
)


def _bounded(expanded=False):
    text = "x" * 1000
    aliases = ", ".join([text if expanded else "*s"] * 250)
    return BOUNDED.format(text=text, aliases=aliases)


class _Unaliased(yaml.SafeDumper):
    """Writes a shared node out again at each place: the text the aliases stand for."""

    def ignore_aliases(self, data):
        return True


def _timed(call):
    started = time.perf_counter()
    response = call()
    return time.perf_counter() - started, response


def _cases(client, auth):
    """(label, request) of each probe on one service; a request answers (status, bytes)."""

    def post(path, body):
        return lambda: client.post(path, json=body, headers=auth)

    def export(yml, name):
        def call():
            body = {"name": name, "blueprintType": "kubernetes", "yml": yml}
            made = client.post("/blueprints", json=body, headers=auth)
            if made.status != 201:
                return made
            return client.get(f"/blueprints/{made.json['id']}/export?format=openshift", headers=auth)

        return call

    import_body = {"format": "openshift", "source": "bench/probe", "document": probes.alias_tree_templates()}
    expanded = yaml.dump_all(yaml.safe_load_all(probes.alias_tree_templates()), Dumper=_Unaliased)
    return [
        ("import: six alias trees (3 KB of text)", post("/imports?dryRun=true", import_body)),
        (
            "import floor: the six written out (5 MB)",
            post("/imports?dryRun=true", {**import_body, "document": expanded}),
        ),
        ("export: 50 KB, a 10 KB string aliased", export(probes.scalar_alias_definition(), "probe")),
        ("export: the largest the bound allows", export(_bounded(), "bounded")),
        ("export floor: the same without aliases", export(_bounded(expanded=True), "floor")),
    ]


def run(servers, admin):
    """`servers`: (label, gunicorn) of this service and the --against revision, if any."""
    auth = {"Authorization": basic(*admin)}
    clients = [(label, server, SocketClient(server.port, timeout=120)) for label, server in servers]
    print(f"\nprobes: the security probe's shapes, medians of {ROUNDS} (docs/security.md)")
    print(f"  {'request':42} {'service':10} {'status':>6} {'ms':>9} {'answer bytes':>13}")
    cases = {label: _cases(client, auth) for label, _, client in clients}
    for index in range(len(cases[clients[0][0]])):
        for label, _, _ in clients:  # A B A B: the revisions take turns
            name, call = cases[label][index]
            runs = [_timed(call) for _ in range(ROUNDS)]
            elapsed = statistics.median(seconds for seconds, _ in runs)
            status, size = runs[-1][1].status, len(runs[-1][1].body)
            print(f"  {name:42} {label:10} {status:>6} {elapsed * 1000:9.1f} {size:>13,}")
    for label, server, _ in clients:
        print(f"  {label}: workers' peak RSS {', '.join(f'{mb:.0f} MB' for mb in server.worker_rss_mb('VmHWM'))}")
