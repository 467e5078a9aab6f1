"""The scale scenario of `make bench`: what a request costs at 1,200 and at 100,000 blueprints.

Blueprints are seeded straight into the database, as the service stores them (with their
requirements and keys), their creation times spread over the same 30 days at both sizes (100
times denser at 100,000), owned by 100 users of whom the measuring member is one: 60 % OWNER,
30 % PUBLIC, 10 % CUSTOM (a fifth of those naming the member); the member has starred a fifth of
the PUBLIC ones. Each single-filter list is measured at three selectivities of the collection:
one blueprint (the NEEDLE, PUBLIC, among the first 1,000), 1 % and 30 % of them (TIERS), and
with a value that matches none, a new one at every repetition (the walk down to the oldest
blueprint). Then the lists people ask for right after an import: bursts of 10, 50 and 200 made
through the API, each list of them asked for once, cold (`bursts`). A fresh service (gunicorn,
as `make run` starts it) is started on each size, and each operation is timed sequentially over
loopback; the table gives medians, their ratio across sizes and to the plain first page of as
many items at each size.
"""

import random
import statistics
import string
import time
from datetime import UTC, datetime, timedelta
from functools import partial

from pymongo import MongoClient

from app import definitions, migrations
from app.blueprints.storage import store
from app.storage import ids, list_keys, pages
from support.http import SocketClient, basic
from support.processes import ROOT, Gunicorn

DAYS = 30
PLAIN = "GET /blueprints?limit=50"
PLAIN_200 = "GET /blueprints?limit=200"
BURSTS = (10, 50, 200)
BURST_REPEATS = 5
BURST_TAG = "bench-burst"  # removed after each burst, so that the next is made on the seed alone
BESIDE = {50: "plain first page, limit 50, beside the bursts", 200: "plain first page, limit 200, beside the bursts"}
MEMBER = ("bench-member", "bench-member-password")
OWNERS = [MEMBER[0]] + [f"owner{i}" for i in range(99)]
WORDS = ["web", "tier", "postgres", "redis", "cache", "worker", "queue", "api", "gateway", "batch", "metrics", "search"]
NEEDLE = {
    "name": "needle",
    "blueprintType": "needle-type",
    "tags": ["needle-tag"],
    "owner": "needle-owner",
    "description": "the only zyxwvut",
    "entitlementType": "PUBLIC",
    "source": {"format": "dokploy", "name": "needle-catalog", "key": "needle-key"},  # bpctl's SOURCE:KEY
}
# filter -> (its value at 1 % of blueprints, at 30 %): `tier` below gives each blueprint its values
TIERS = {
    "name": ("common-name", "usual-name"),
    "blueprintType": ("helm", "kubernetes"),
    "tag": ("rare", "usual"),
    "q": ("quasar", "nebula"),
    "owner": ("owner-few", "owner-many"),
}


def tier(rng):
    """0: this blueprint has a filter's 1 % value, 1: its 30 % value, None: neither."""
    draw = rng.random()
    return 0 if draw < 0.01 else 1 if draw < 0.31 else None


def blueprint(body, moment, rng):
    kind = rng.choices(("OWNER", "PUBLIC", "CUSTOM"), (60, 30, 10))[0]
    named = rng.sample(OWNERS[1:], 3) + ([MEMBER[0]] if rng.random() < 0.2 else [])
    doc = {
        **body,
        "_id": ids.new_id(moment),
        "name": f"bp-{rng.randrange(10**6)}",
        "blueprintType": "compose",
        "description": " ".join(rng.sample(WORDS, 4)),
        "tags": [],
        "entitlementType": kind,
        "entitledUsers": named if kind == "CUSTOM" else [],
        "inactive": rng.random() < 0.01,
        "starredBy": [MEMBER[0]] if kind == "PUBLIC" and rng.random() < 0.2 else [],
        "owner": rng.choice(OWNERS),
        "createdAt": moment,
        "updatedAt": moment,
        "rev": 1,
    }
    for field, values in TIERS.items():
        if (which := tier(rng)) is not None:
            value = values[which]
            if field == "tag":
                doc["tags"].append(value)
            elif field == "q":
                doc["description"] += " " + value
            else:
                doc[field] = value
    return doc


def seed(blueprints, count, body, rng, needle=False):
    """Add `count` blueprints created at random moments of the last DAYS days (and the NEEDLE), as
    the service stores them."""
    end, oldest = datetime.now(UTC), DAYS * 86400
    stored = {"requirements": definitions.requirements(body["blueprintType"], body["yml"])}
    for start in range(0, count, 5000):
        batch = []
        for i in range(min(5000, count - start)):
            moment = end - timedelta(seconds=rng.uniform(0, oldest))
            moment = moment.replace(microsecond=moment.microsecond // 1000 * 1000)
            doc = {**blueprint(body, moment, rng), **stored, **(NEEDLE if needle and start == i == 0 else {})}
            batch.append({**doc, "updatedBy": doc["owner"], "keys": store.keys(doc)})
        blueprints.insert_many(batch, ordered=False)
    pages.lower_floor(blueprints, ids.ms_of(end - timedelta(seconds=oldest)))
    migrations.mark_current(blueprints.database)


def seed_many(blueprints, count, body, rng, needle=False):
    """`seed`, with the keys index built once after the inserts rather than entry by entry (a
    quarter faster on the embedded server)."""
    if list_keys.INDEX["name"] in blueprints.index_information():
        blueprints.drop_index(list_keys.INDEX["name"])
    seed(blueprints, count, body, rng, needle)
    blueprints.create_index(list_keys.INDEX["keys"], name=list_keys.INDEX["name"])


def settle(port, quiet_ms=20, timeout=60):
    """Wait until the database answers a ping quickly: queries a run left in flight (a list page
    on the embedded server sorts the whole collection) must not weigh on the next run."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if timed(SocketClient(port).get, "/readyz")[0] < quiet_ms:
            return
        time.sleep(0.5)


def clear(blueprints):
    """Remove the bursts' blueprints (PUBLIC, as the shared body is: found by their tag's key)."""
    blueprints.delete_many({list_keys.FIELD: list_keys.key(list_keys.EVERYONE, f"g:{BURST_TAG}")})


def timed(send, *args, **kwargs):
    """(milliseconds, response) of one request `send(*args, **kwargs)`."""
    started = time.perf_counter()
    response = send(*args, **kwargs)
    return (time.perf_counter() - started) * 1000, response


def median_ms(clients, path, headers, repeats):
    """[(median ms, items of the last answer)] per client, asked in turns (A B A B); `path` is a
    string, or a function of the repetition's number that gives one."""
    times, items = [[] for _ in clients], [0] * len(clients)
    for i in range(repeats):
        url = path(i) if callable(path) else path
        for which, client in enumerate(clients):
            ms, r = timed(client.get, url, headers=headers)
            times[which].append(ms)
            assert r.status == 200, (url, r.status, r.body[:200])
            items[which] = len(r.json["items"]) if "items" in r.json else 1
    return [(statistics.median(found), count) for found, count in zip(times, items, strict=True)]


def selective(member):
    """Each single filter at one blueprint, 1 %, 30 % and none, as the member."""
    page = "/blueprints?limit=50&"
    operations = {}
    for field, (few, many) in TIERS.items():
        one = NEEDLE["tags"][0] if field == "tag" else "zyxwvut" if field == "q" else NEEDLE[field]
        operations |= {
            f"{field}: 1 blueprint": (f"{page}{field}={one}", member),
            f"{field}: 1 %": (f"{page}{field}={few}", member),
            f"{field}: 30 %": (f"{page}{field}={many}", member),
            f"{field}: none": (lambda i, field=field: f"{page}{field}=none{i}", member),
        }
    return operations


def bursts(clients, headers, body, rng, repeats, clear):
    """[{operation: (median ms, items)}] per client of the lists people ask for right after an
    import: for each size in BURSTS, each repetition and each client in turn, the plain first
    pages of 50 and 200 (BESIDE: the same moments, so that the ratio holds on a noisy machine),
    then that many blueprints created through the API in one burst, sharing a tag and two words,
    then each list of them asked for once (cold: no list twice, no plain page since the burst),
    then `clear()` removes the burst."""
    times, items = [{} for _ in clients], {}
    for size in BURSTS:
        for _ in range(repeats):
            for which, client in enumerate(clients):
                _burst(client, headers, body, rng, size, times[which], items)
                clear()
    return [{name: (statistics.median(found), items[name]) for name, found in mine.items()} for mine in times]


def _burst(client, headers, body, rng, size, times, items):
    """One burst of `size` made and listed on `client`, its times added to `times`."""
    for limit in (50, 200):
        ms, r = timed(client.get, f"/blueprints?limit={limit}", headers=headers)
        assert r.status == 200
        times.setdefault(BESIDE[limit], []).append(ms)
        items[BESIDE[limit]] = limit
    tag, word, other = ("".join(rng.choices(string.ascii_lowercase, k=9)) for _ in range(3))
    for i in range(size):
        made = {**body, "name": f"import-{i}", "description": f"{word} {other}", "tags": [tag, BURST_TAG]}
        assert client.post("/blueprints", json=made, headers=headers).status == 201
    for form, query, limit in (("q", f"q={word}", 200), ("tag", f"tag={tag}", 200), ("q", f"q={other}", 50)):
        name = f"burst of {size}: {form}, limit {limit}, cold"
        ms, r = timed(client.get, f"/blueprints?{query}&limit={limit}", headers=headers)
        times.setdefault(name, []).append(ms)
        assert r.status == 200 and len(r.json["items"]) == min(size, limit), (name, r.status)
        items[name] = len(r.json["items"])


def measure(ports, admin_headers, profile, body, repeats, clear):
    """[{operation: (median ms, items)}] per service (`ports`, asked in turns), as the member (and
    some as the admin); `clear()` removes the blueprints a burst made."""
    clients, member = [SocketClient(port) for port in ports], {"Authorization": basic(*MEMBER)}
    client = clients[0]  # what the operations need is made once: the services share the database
    first = client.get("/blueprints?entitlementType=PUBLIC&limit=1", headers=member)
    assert first.status == 200, first.body[:300]
    one = first.json["items"][0]["id"]
    deep = "/blueprints?limit=50"
    for _ in range(4):
        deep = "/blueprints?limit=50&cursor=" + client.get(deep, headers=member).json["next"]
    own = client.post("/blueprints", json={"name": "mine", "tags": ["bench"]}, headers=member).json["id"]
    for i in range(10):  # a history of 11 versions
        client.patch(f"/blueprints/{own}", json={"name": f"mine {i}"}, headers=member)
    # Profiles are made through the last service (the `against` revision, when there is one): a
    # revision reads what an earlier one stored (the migrations' rule), not always the reverse.
    tight = clients[-1].post("/profiles", json={**profile, "name": "tight", "memoryCap": "1Mi"}, headers=member)
    tight = tight.json["id"]
    page = "/blueprints?limit=50"
    operations = {
        "GET /blueprints/{id}": (f"/blueprints/{one}", member),
        "GET /blueprints/{id}/revisions": (f"/blueprints/{own}/revisions", member),
        PLAIN: (page, member),
        "same, 5 pages deep": (deep, member),
        **selective(member),
        "inactive=true: 1 %": (f"{page}&inactive=true", member),
        "inactive=false: 99 %": (f"{page}&inactive=false", member),
        "entitlementType=PUBLIC: 30 %": (f"{page}&entitlementType=PUBLIC", member),
        "entitlementType=CUSTOM: 10 %": (f"{page}&entitlementType=CUSTOM", member),
        "starred=true: 6 %": (f"{page}&starred=true", member),
        "tag=rare&blueprintType=helm: 0.01 %": (f"{page}&tag=rare&blueprintType=helm", member),
        "fitsProfile, fits none: 0 %": (f"{page}&fitsProfile={tight}", member),
        "GET /profiles?limit=50 (6 profiles)": ("/profiles?limit=50", member),
        "admin: plain first page": (page, admin_headers),
        "admin: name: 1 blueprint": (f"{page}&name=needle", admin_headers),
        "source&sourceKey: 1 blueprint": (f"{page}&source=needle-catalog&sourceKey=needle-key", member),
        "admin: q: 1 %": (f"{page}&q=quasar", admin_headers),
    }
    for path, headers in operations.values():  # warm the workers' caches
        for warmed in clients:
            warmed.get(path(repeats) if callable(path) else path, headers=headers)
    medians = [{} for _ in clients]
    for name, (path, headers) in operations.items():
        for mine, found in zip(medians, median_ms(clients, path, headers, repeats), strict=True):
            mine[name] = found
    patches = median_patch_ms(clients, own, member, repeats)
    pages_of_200 = median_ms(clients, "/blueprints?limit=200", member, repeats)
    for mine, ms, found in zip(medians, patches, pages_of_200, strict=True):
        mine["PATCH /blueprints/{id} (history kept)"], mine[PLAIN_200] = (ms, 1), found
    made = bursts(clients, member, body, random.Random(ports[0]), BURST_REPEATS, clear)
    return [mine | burst for mine, burst in zip(medians, made, strict=True)]


def median_patch_ms(clients, blueprint, headers, repeats):
    """The median ms of a change per client, in turns."""
    times = [[] for _ in clients]
    for i in range(repeats):
        for which, client in enumerate(clients):
            change = {"description": f"change {which} {i}"}
            ms, r = timed(client.patch, f"/blueprints/{blueprint}", json=change, headers=headers)
            times[which].append(ms)
            assert r.status == 200, r.body[:200]
    return [statistics.median(found) for found in times]


def run(mongo_uri, admin, body, profile, sizes=(1200, 100_000), repeats=25, against=None, log=print):
    """Seed each size in turn (the database "scale"), measure, and print both with their ratio,
    and each at the larger size to the plain first page's; the database's sizes too. `against`:
    another revision's worktree, serving the same database beside this one, asked in turns."""
    rng = random.Random(20261122)
    blueprints = MongoClient(mongo_uri).scale.blueprints
    results, have = {}, 0
    for size in sizes:
        started = time.monotonic()
        seed_many(blueprints, size - have, body, rng, needle=not have)
        have = size
        stats = blueprints.database.command("dbStats")
        log(
            f"seeded {size:,} blueprints ({time.monotonic() - started:.0f} s): data "
            f"{stats['dataSize'] / 2**20:.1f} MiB, indexes {stats['indexSize'] / 2**20:.1f} MiB"
        )
        services = [
            Gunicorn(
                cwd=cwd,
                MONGO_URI=mongo_uri,
                MONGO_DB="scale",
                ADMIN_USERNAME=admin[0],
                ADMIN_PASSWORD=admin[1],
                LOG_LEVEL="warning",
                RATE_LIMIT="1000000000 per minute",
            )
            for cwd in (ROOT, *([against] if against else []))
        ]
        try:
            for service in services:
                service.start()
            settle(services[0].port)  # the database is still writing out what was seeded
            admin_headers = {"Authorization": basic(*admin)}
            client = SocketClient(services[0].port)
            if (
                client.post(
                    "/users",
                    json={"username": MEMBER[0], "password": MEMBER[1], "role": "member"},
                    headers=admin_headers,
                ).status
                == 201
            ):
                for _ in range(5):  # through the last service, as `measure` makes its profile
                    SocketClient(services[-1].port).post(
                        "/profiles", json=profile, headers={"Authorization": basic(*MEMBER)}
                    )
            ports = [service.port for service in services]
            results[size] = measure(ports, admin_headers, profile, body, repeats, partial(clear, blueprints))
        finally:
            for service in services:
                if service.process:
                    service.stop()
            clear(blueprints)
    small, large = sizes
    log(f"\n{'operation (as the member), items':40} {small:>13,} {large:>13,} {'ratio':>6} {'/plain':>6} at each size")
    for name in results[small][0]:
        (a, items_a), (b, items_b) = results[small][0][name], results[large][0][name]
        limit = 200 if "limit 200" in name else 50  # the plain first page of as many items (at the same moments)
        plain = BESIDE[limit] if name.startswith("burst") else PLAIN_200 if limit == 200 else PLAIN
        ratios = f"{a / results[small][0][plain][0]:6.2f} {b / results[large][0][plain][0]:6.2f}"
        log(f"{name:40} {a:7.1f}ms {items_a:3d} {b:7.1f}ms {items_b:3d} {b / a:6.2f} {ratios}")
    if against:
        log(f"\n{'operation, this / against, in turns':40} {small:>22,} {large:>22,}")
        for name in results[small][0]:
            pairs = [(results[size][0][name][0], results[size][1][name][0]) for size in sizes]
            cells = [f"{this:7.1f} {before:7.1f} {this / before:5.2f}" for this, before in pairs]
            log(f"{name:40} " + " ".join(cells))
    return results
