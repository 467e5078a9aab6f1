"""The keys a blueprint is found by stay bounded, and what lies past a bound is still found."""

import itertools
import string

from app.storage import list_keys
from support.http import create


def names(api, query, user):
    r = api.get(f"/blueprints?{query}", user=user)
    assert r.status == 200, r.json
    return [item["name"] for item in r.json["items"]]


def test_a_description_of_the_longest_kind_is_found_by_every_word(api):
    starts = ("".join(start) + "xy" for start in itertools.product(string.ascii_lowercase, repeat=3))
    words = list(itertools.islice(starts, 10_000 // 6))  # the most 5-letter words 10,000 characters hold, each
    # with a start of 3 of its own: two keys each
    description = " ".join(words)
    assert len(description) <= 10_000
    create(api, "blueprints", name="dense", description=description)
    for word in (words[0], words[len(words) // 2], words[-1]):
        assert names(api, f"q={word}", "alice") == ["dense"]


def test_users_past_the_bound_of_keys_still_find_what_is_shared_with_them(api, monkeypatch):
    monkeypatch.setattr(list_keys, "MAX_KEYS", 30)  # the owner's and admins' keys fit; bob's and carol's not
    made = create(
        api,
        "blueprints",
        name="shared",
        description="postgres on kubernetes",
        tags=["db"],
        entitlementType="CUSTOM",
        entitledUsers=["bob", "carol"],
    ).json
    create(api, "blueprints", user="bob", name="shared")  # bob's own, the same name
    for query in ("name=shared", "q=postgres", "tag=db", "owner=alice", ""):
        found = names(api, query, "bob")
        assert "shared" in found and (query in ("", "name=shared") or found == ["shared"]), (query, found)
    assert names(api, "name=shared", "bob") == ["shared", "shared"]
    assert names(api, "q=kube", "admin") == names(api, "q=kube", "alice") == ["shared"]
    assert names(api, "q=kube", "victor") == []
    api.patch(f"/blueprints/{made['id']}", json={"entitledUsers": ["carol"]}, user="alice")
    assert names(api, "q=postgres", "bob") == [] and names(api, "q=postgres", "carol") == ["shared"]
