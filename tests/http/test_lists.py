"""Lists: keyset pages newest first, signed cursors, filters, and parameters that cannot inject."""

import threading
from urllib.parse import quote

import pytest

from support.http import assert_problem, create
from support.lists import seed_spread, walk


@pytest.mark.parametrize("collection", ["profiles", "blueprints"])
def test_pages_walk_every_item_once_newest_first(api, collection):
    ids = [create(api, collection, name=f"n{i}").json["id"] for i in range(7)]
    seen = walk(api, f"/{collection}?limit=3")
    assert [item["id"] for item in seen] == ids[::-1]


def test_default_and_maximum_limit(api):
    for i in range(52):
        create(api, "profiles", name=f"p{i}")
    first = api.get("/profiles", user="alice").json
    assert len(first["items"]) == 50 and first["next"]
    assert len(api.get("/profiles?limit=200", user="alice").json["items"]) == 52


@pytest.mark.parametrize(
    "query",
    [
        "limit=0",
        "limit=201",
        "limit=abc",
        "limit=1.5",
        "cursor=abc",
        "cursor=IjZiMDI5N2Q1YjE3Y2MwZTRmMDU3ZGRjYyI.forged",
        "colour=red",
        "defaultProfile=yes",
        "defaultProfile=1",
        "q=",
        "owner=a",
    ],
)
def test_bad_parameters_are_422(api, query):
    body = assert_problem(api.get(f"/profiles?{query}", user="alice"), 422)
    assert query.split("=")[0] in body["errors"]


def test_a_cursor_from_another_list_still_only_shows_what_the_caller_may_read(api):
    for i in range(3):
        create(api, "profiles", user="bob", name=f"b{i}")
    bob_page = api.get("/profiles?limit=1", user="bob").json
    alice_page = api.get(f"/profiles?cursor={bob_page['next']}", user="alice").json
    assert alice_page["items"] == []


def test_profile_filters_combine_and_match_only_what_the_caller_may_read(api):
    create(api, "profiles", name="web", defaultProfile=True)
    create(api, "profiles", name="Web server", memoryCap="1Gi")
    create(api, "profiles", user="bob", name="web")

    def names(query, user="alice"):
        return sorted(item["name"] for item in api.get(f"/profiles?{query}", user=user).json["items"])

    assert names("name=web") == ["web"]
    assert names("name=%20web%20") == ["web"]
    assert names("q=WEB") == ["Web server", "web"]
    assert names("defaultProfile=true") == ["web"]
    assert names("defaultProfile=false") == ["Web server"]
    assert names("owner=bob") == []  # not an admin: only their own, whatever the filter
    assert names("name=web", user="admin") == ["web", "web"]
    assert names("name=web&owner=bob", user="admin") == ["web"]


def test_blueprint_filters_combine_and_match_only_what_the_caller_may_read(api):
    create(api, "blueprints", name="a", blueprintType="helm", entitlementType="PUBLIC", inactive=True)
    create(api, "blueprints", name="b", blueprintType="compose", description="Uses HELM charts")
    create(api, "blueprints", name="c", entitlementType="CUSTOM", entitledUsers=["bob"])

    def names(query, user="alice"):
        return sorted(item["name"] for item in api.get(f"/blueprints?{query}", user=user).json["items"])

    assert names("blueprintType=helm") == ["a"]
    assert names("entitlementType=public") == ["a"]
    assert names("entitlementType=CUSTOM") == ["c"]
    assert names("inactive=true") == ["a"]
    assert names("inactive=false") == ["b", "c"]
    assert names("q=helm") == ["b"]  # name or description, not the type
    assert names("") == ["a", "b", "c"]
    assert names("", user="bob") == ["a", "c"]
    assert names("", user="victor") == ["a"]
    assert_problem(api.get("/blueprints?entitlementType=everyone", user="alice"), 422)


@pytest.mark.parametrize(
    "query",
    [
        "name[$ne]=x",
        "name=%7B%22%24ne%22%3A%20%22x%22%7D",
        "q=.*",
        "q=%5E",
        "q=(",
        "q=%5C",
        "q=a|b",
        "owner[$regex]=.*",
        "name=x&name[$gt]=",
        "q=" + quote('{"$where": "1"}'),
        "cursor[$gt]=0",
    ],
)
def test_query_injection_never_widens_a_result(api, query):
    create(api, "profiles", name="alice's only")
    create(api, "profiles", user="bob", name="bob's secret")
    r = api.get(f"/profiles?{query}", user="alice")
    assert r.status in (200, 422)
    if r.status == 200:
        assert all(item["owner"] == "alice" for item in r.json["items"])
        assert r.json["items"] == [] or query.startswith("name=x")


def test_q_finds_what_every_word_starts_a_word_of(api):
    create(api, "blueprints", name="PostgreSQL-16", description="The database")
    create(api, "blueprints", name="Straße", tags=["redis-cache"])
    create(api, "blueprints", name="a.b (1)", description="über alles")
    create(api, "blueprints", name="axb 1")

    def names(q):
        r = api.get(f"/blueprints?q={quote(q)}", user="alice")
        assert r.status == 200, r.json
        return [item["name"] for item in r.json["items"]]

    assert names("post") == names("16 postgres") == names("POSTGRESQL") == names("data") == ["PostgreSQL-16"]
    assert names("gres") == names("postgresql-17") == names("sql") == []
    assert names("STRASSE") == names("strass") == names("red") == names("CACHE") == ["Straße"]
    assert names("a.b (") == names("b a") == names("ÜBER") == ["a.b (1)"]  # punctuation separates words
    assert names("ax") == names("1 ax") == ["axb 1"]
    assert names("1") == ["axb 1", "a.b (1)", "PostgreSQL-16"]  # 16 starts with 1
    assert names(".*|a") == ["axb 1", "a.b (1)"]  # only the word `a`, taken as a prefix


@pytest.mark.parametrize("q", [".*", "%20", "---", "a+b+c+d+e+f+g+h+i+j+k"])
def test_a_q_without_words_or_with_too_many_is_refused(api, q):
    problem = assert_problem(api.get(f"/blueprints?q={q}", user="alice"), 422)
    assert "q" in str(problem)


@pytest.mark.parametrize("app", ["socket"], indirect=True)
def test_a_walk_during_inserts_sees_every_earlier_item_exactly_once(api):
    before = [create(api, "profiles", name=f"old{i}").json["id"] for i in range(30)]
    stop = threading.Event()

    def insert_meanwhile():
        i = 0
        while not stop.is_set() and i < 200:
            create(api, "profiles", name=f"new{i}")
            i += 1

    writer = threading.Thread(target=insert_meanwhile)
    writer.start()
    try:
        seen = [item["id"] for item in walk(api, "/profiles?limit=4")]
    finally:
        stop.set()
        writer.join()
    assert len(seen) == len(set(seen))
    assert [i for i in seen if i in before] == before[::-1]


def test_pages_over_sparse_data_walk_every_item_once_newest_first(app, api):
    made = seed_spread(app, 25)
    assert [item["id"] for item in walk(api, "/blueprints?limit=4")] == made
    assert [item["id"] for item in walk(api, "/blueprints?limit=200")] == made


def test_a_q_page_stops_after_reading_its_bound_and_the_walk_goes_on(app, api):
    made = seed_spread(app, 30)
    app.config["LIST_MOST_EXAMINED"] = 5
    first = api.get("/blueprints?q=spread0", user="alice").json
    assert first["items"] == [] and first["next"]  # the only match is the oldest
    found = walk(api, "/blueprints?q=spread0")
    assert [item["id"] for item in found] == [made[-1]]
