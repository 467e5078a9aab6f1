"""What one page costs, whatever the spread of what it finds: queries and documents counted with
pymongo's command listener on the embedded server, over spreads hypothesis generates (bursts of
1-500 made in one millisecond or one second, single old needles, years of gaps, a dense branch
beside a sparse one, documents a page rejects, nothing at all), walking up to PAGES pages of
each list.

The bound (app/storage/pages.py, docs/storage.md "A page's walk"): with B branches and a span of S ms
between the newest possible id and the floor, a page sends at most B * (1 + ceil(log2 S))
queries, since every window at least doubles the span walked; when every document its branches
find is accepted (one filter), it receives at most (B + 1) * (limit + 1) documents, and otherwise
at most LIST_MOST_EXAMINED plus B * LIST_WINDOW_DOCS."""

import itertools
import math
from datetime import timedelta

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from pymongo import MongoClient, monitoring

from support.apps import settings as app_settings

pytestmark = pytest.mark.socket
_collections = itertools.count()
MS = {"ms": 0, "second": 999}  # how far apart a burst's documents lie
AGO = st.one_of(  # how long ago a group was made, in ms: now, hours, years
    st.integers(0, 2_000), st.integers(0, 3_600_000 * 24), st.integers(0, 3_600_000 * 24 * 365 * 5)
)
PAGES = 12  # walked of each list: each checked, and the walk's items a prefix of all it would give
GROUP = st.tuples(AGO, st.integers(1, 500), st.sampled_from(sorted(MS)), st.sampled_from("ab"), st.booleans())


class Counted(monitoring.CommandListener):
    """The finds sent while `on`, their (collection, filter), and the documents their replies (and
    getMores) held."""

    def __init__(self):
        self.queries, self.documents, self.filters, self.on = 0, 0, [], False

    def started(self, event):
        if self.on and event.command_name == "find":
            self.queries += 1
            self.filters.append((event.command["find"], event.command["filter"]))

    def succeeded(self, event):
        cursor = event.reply.get("cursor") if self.on else None
        if cursor:
            self.documents += len(cursor.get("firstBatch", cursor.get("nextBatch", ())))

    def failed(self, event):
        pass


@pytest.fixture(scope="module")
def walker(mongo_server):
    """(an app to run pages in, the counting listener, a database) on the embedded server."""
    from app import create_app

    counted = Counted()
    client = MongoClient(mongo_server.uri, event_listeners=[counted], tz_aware=True, retryWrites=False)
    app = create_app(app_settings(MONGO_DB="pagecost"), mongo_client=client)
    return app, counted, client.pagecost


def spread(groups, start):
    """The documents `groups` describe: each group `size` documents made `ago` ms before `start`
    in one ms or over one second, in branch `a` or `b`, accepted or not."""
    from app.storage import ids

    docs = []
    for ago, size, over, branch, accepted in groups:
        for i in range(size):
            moment = start - timedelta(milliseconds=ago + (i * MS[over]) // size)
            docs.append({"_id": ids.new_id(moment), "keys": [branch], "accepted": accepted})
    return docs


def walk(app, counted, coll, branches, accepts, limit, most_pages=PAGES):
    """The pages of the list, following its position (the first `most_pages` of them), with the
    queries and documents of each."""
    from app.storage import list_keys, pages

    query = list_keys.ListQuery(tuple({"keys": b} for b in branches), accepts, plain=False)
    costs, found, position = [], [], None
    with app.app_context():
        pages.prepare(coll)
        floor = pages.pager(coll).floor_ms
        while True:
            counted.queries = counted.documents = 0
            counted.on = True
            items, position = pages.pager(coll).read(query, limit, position, app.config["LIST_MOST_EXAMINED"])
            counted.on = False
            costs.append((counted.queries, counted.documents, len(items)))
            found += items
            if position is None or len(costs) == most_pages:
                return found, costs, floor


# Found by the search below: 462 documents of one millisecond, most of those below the fourth
# page rejected; each window was cut in that millisecond, so its span could not double, and the
# fifth page took 29 windows (its bound 28).
BURST_IN_ONE_MS = [
    (0, 1, "ms", "a", False),
    (0, 1, "ms", "a", False),
    (0, 213, "ms", "a", False),
    (0, 73, "ms", "a", True),
    (0, 174, "ms", "a", True),
]


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@example(groups=BURST_IN_ONE_MS, limit=50, both=False, rejecting=True)
@given(
    groups=st.lists(GROUP, max_size=5),
    limit=st.sampled_from([1, 5, 50, 200]),
    both=st.booleans(),
    rejecting=st.booleans(),
)
def test_a_page_costs_at_most_its_bound_whatever_the_spread(walker, groups, limit, both, rejecting):
    from app.storage import ids
    from app.storage.database import now

    app, counted, db = walker
    coll = db[f"spread{next(_collections)}"]
    start = now()
    docs = spread(groups, start)
    if docs:
        coll.insert_many(docs)
    branches = ("a", "b") if both else ("a",)
    accepts = (lambda doc: doc["accepted"]) if rejecting else (lambda doc: True)
    found, costs, floor = walk(app, counted, coll, branches, accepts, limit)

    wanted = sorted((d for d in docs if d["keys"][0] in branches and accepts(d)), key=lambda d: d["_id"], reverse=True)
    assert [d["_id"] for d in found] == [d["_id"] for d in wanted][: len(found)]  # each once, newest first
    assert len(found) == len(wanted) or len(costs) == PAGES
    span = ids.ms_of(start) + 60_000 + 1_000 - floor
    most_queries = len(branches) * (1 + math.ceil(math.log2(span)))
    most_documents = (
        app.config["LIST_MOST_EXAMINED"] + len(branches) * app.config["LIST_WINDOW_DOCS"]
        if rejecting
        else (len(branches) + 1) * (limit + 1)
    )
    for queries, documents, items in costs:
        assert queries <= most_queries, (queries, most_queries, costs)
        assert documents <= most_documents, (documents, most_documents, costs)
        assert rejecting or items == limit or (queries, documents, items) == costs[-1]  # full unless last


def test_a_quiet_hour_above_dense_documents_does_not_send_a_window_blind_onto_them(walker):
    """After a miss the walk widens by at most GROWTH times the span walked: a first page that
    finds nothing in the last half hour (a quiet spell) and then steps onto a day of documents
    (100,000 a month) must not read the whole day in one window. The embedded server reads every
    document of a range before it limits, so the documents its ranges hold are counted here."""
    from app.storage import ids, list_keys, pages
    from app.storage.database import now

    app, counted, db = walker
    coll = db[f"quiet{next(_collections)}"]
    start = now()
    coll.insert_many(
        [{"_id": ids.new_id(start - timedelta(minutes=30, seconds=29 * i)), "keys": ["a"]} for i in range(3_000)]
    )
    query = list_keys.ListQuery(({"keys": "a"},), lambda doc: True, plain=False)
    with app.app_context():
        pages.prepare(coll)
        counted.filters, counted.on = [], True
        items, _ = pages.pager(coll).read(query, 50)
        counted.on = False
    assert len(items) == 50
    assert examined(db, counted) <= pages.GROWTH * 51


def examined(db, counted, collection=None):
    """The documents the embedded server read for the finds `counted` (of `collection`, or all):
    every document in the range of each."""
    return sum(db[name].count_documents(one) for name, one in counted.filters if collection in (None, name))


def test_a_search_right_after_a_burst_of_creates_reads_about_one_page(walker):
    """An import, then a search: a burst of creates at the top of the collection is as dense for
    every list that matches it, so the first window of the first page after it holds about a
    page of them, not the whole burst (the embedded server reads all a window holds)."""
    from support.apps import add_users
    from support.http import FlaskClient

    app, counted, db = walker
    add_users(app)
    api = FlaskClient(app)
    for i in range(300):
        assert api.post("/blueprints", json={"name": f"imported-{i}", "tags": ["burst"]}, user="alice").status == 201
    counted.filters, counted.on = [], True
    r = api.get("/blueprints?tag=burst&limit=50", user="alice")
    counted.on = False
    assert r.status == 200
    assert [item["name"] for item in r.json["items"]] == [f"imported-{i}" for i in range(299, 249, -1)]
    assert examined(db, counted, "blueprints") <= 3 * 51


def test_a_slow_burst_with_a_pause_after_it_is_not_read_whole_either(walker):
    """Creates slower than the first window is wide (no plain page yet: one second), then a
    pause longer than that: the first window still spans the page's worth of the newest creates,
    rather than missing above them and growing blind onto the whole burst."""
    from app.storage import ids, list_keys, pages
    from app.storage.database import now

    app, counted, db = walker
    coll = db[f"slow{next(_collections)}"]
    start = now()
    made = [ids.new_id(start - timedelta(milliseconds=1_500 + 20 * i)) for i in range(300)][::-1]
    coll.insert_many([{"_id": oid, "keys": ["a"]} for oid in made])
    query = list_keys.ListQuery(({"keys": "a"},), lambda doc: True, plain=False)
    with app.app_context():
        pages.prepare(coll)
        for oid in made:
            pages.pager(coll).created(oid)
        counted.filters, counted.on = [], True
        items, _ = pages.pager(coll).read(query, 50)
        counted.on = False
    assert [item["_id"] for item in items] == made[::-1][:50]
    assert examined(db, counted) <= 3 * 51
