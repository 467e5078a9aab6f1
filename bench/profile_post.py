"""Where the CPU of one POST /blueprints goes (`make profile`): the shared 1 KB body, sent many
times in-process (Flask's test client) to the service on an embedded database running as its own
process, so that only the app's CPU is counted; cProfile with a CPU clock, grouped by part."""

import contextlib
import cProfile
import pstats
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from support.apps import embedded_database, make_app  # noqa: E402
from support.http import basic  # noqa: E402

BODY = (ROOT / "bench" / "bodies" / "blueprint.json").read_text()
HEADERS = {"Authorization": basic("alice"), "Content-Type": "application/json"}
# part -> the function whose time (with what it calls) is that part; a part nested in another
# is subtracted from it (the schema's load includes the YAML check)
PARTS = {
    "credentials (cached Basic)": ("app/access/auth.py", "_verify_password"),
    "request quota": ("app/access/request_quota.py", "check"),
    "body: size, type, JSON": ("app/http/parser.py", "load_json"),
    "schema load (fields, caps, trimming)": ("marshmallow/schema.py", "_do_load"),
    "YAML: one guarded parse": ("app/model/yamlguard.py", "load"),
    "definition: Compose schema, requirements": ("app/definitions/__init__.py", "requirements"),
    "insert (pymongo's side)": ("pymongo/synchronous/collection.py", "insert_one"),
    "dump (schema)": ("marshmallow/schema.py", "dump"),
    "response body and headers": ("app/http/json_provider.py", "response"),
    "metrics and request log": ("app/ops/__init__.py", "_finish"),
    "test client (not in production)": ("werkzeug/test.py", "get_environ"),
}
NESTED = {"schema load (fields, caps, trimming)": "YAML: one guarded parse"}


def _package(file, name):
    """'yaml', 'werkzeug', 'app'... for a profiled function; C functions by their name."""
    if file == "~":
        return "built-in: " + name.split(" of ")[0].strip("<>{}").replace("method ", "")
    parts = Path(file).parts
    if "site-packages" in parts:
        return parts[parts.index("site-packages") + 1].removesuffix(".py")
    if str(ROOT) in file:
        return "app (this service)" if "/app/" in file else "support (the test client)"
    return "Python's standard library"


def shares(stats):
    """{part: the CPU seconds `stats` (a cProfile's) give it}: each part's function with what it
    calls, a nested part taken out of the one holding it."""
    cumulative = {
        part: sum(s[3] for (file, _, name), s in stats.items() if file.endswith(suffix) and name == function)
        for part, (suffix, function) in PARTS.items()
    }
    for outer, inner in NESTED.items():
        cumulative[outer] -= cumulative[inner]
    return cumulative


@contextlib.contextmanager
def service_client(**extra):
    """A test client of the service, alice a user, on an embedded database of its own process (in
    this one, a profiler would count the database's thread too); `extra`: settings."""
    with embedded_database() as uri:
        yield make_app("socket", uri, LOG_LEVEL="warning", **extra).test_client()


def profiled(client, requests):
    """A cProfile (a CPU clock) of `requests` creates of the shared body, each of which must be a 201:
    a profile of refusals would say nothing of a create."""
    profile = cProfile.Profile(time.process_time)
    profile.enable()
    statuses = [client.post("/blueprints", data=BODY, headers=HEADERS).status_code for _ in range(requests)]
    profile.disable()
    if set(statuses) != {201}:
        raise RuntimeError(f"the profiled creates answered {sorted(set(statuses))}, not 201")
    return profile


def main(requests=3000):
    with service_client() as client:
        for _ in range(300):
            client.post("/blueprints", data=BODY, headers=HEADERS)
        started = time.process_time()
        for _ in range(requests):
            client.post("/blueprints", data=BODY, headers=HEADERS)
        total_ms = (time.process_time() - started) / requests * 1000
        profile = profiled(client, requests)
    stats = pstats.Stats(profile).stats
    spent = sum(tottime for _, _, tottime, _, _ in stats.values())
    cumulative = shares(stats)
    cumulative["the rest: Flask, flask-smorest, webargs, hooks"] = spent - sum(cumulative.values())
    print(f"app CPU per request, unprofiled: {total_ms:.2f} ms; shares from the profile, in ms of that:")
    for part, seconds in sorted(cumulative.items(), key=lambda item: -item[1]):
        print(f"  {part:48} {seconds / spent * total_ms:5.2f} ms")
    by_package = {}
    for (file, _, name), (_, _, tottime, _, _) in stats.items():
        package = _package(file, name)
        by_package[package] = by_package.get(package, 0) + tottime
    print("the same CPU by the package whose own code spends it:")
    for package, seconds in sorted(by_package.items(), key=lambda item: -item[1])[:12]:
        print(f"  {package:48} {seconds / spent * total_ms:5.2f} ms")
    if "--top" in sys.argv:
        pstats.Stats(profile).sort_stats("tottime").print_stats(30)


def patch_with_and_without_history(rounds=5, patches=300):
    """Wall time of a PATCH of a blueprint with its replaced version kept, and with keeping it
    switched off (the same code otherwise), in alternating rounds; medians in ms."""
    from app.blueprints.history.storage import store as history

    with service_client(REVISIONS_KEPT=10**9) as client:
        path = "/blueprints/" + client.post("/blueprints", data=BODY, headers=HEADERS).get_json()["id"]
        keep, results = history.keep, {"kept": [], "not kept": []}
        for _ in range(rounds):
            for label in results:
                history.keep = keep if label == "kept" else (lambda stored: None)
                started = time.perf_counter()
                for i in range(patches):
                    client.patch(path, data=f'{{"description": "change {i}"}}', headers=HEADERS)
                results[label].append((time.perf_counter() - started) / patches * 1000)
        history.keep = keep
    kept, not_kept = (sorted(results[label])[rounds // 2] for label in ("kept", "not kept"))
    print(
        f"PATCH /blueprints/{{id}}: {kept:.2f} ms with history, {not_kept:.2f} ms without (ratio {kept / not_kept:.2f})"
    )


if __name__ == "__main__":
    main()
    patch_with_and_without_history()
