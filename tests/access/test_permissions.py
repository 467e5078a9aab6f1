"""Who may do what: every operation by every kind of caller on every kind of resource.

alice owns everything here; bob is another member; carol a member and victor a viewer, both named
in the CUSTOM blueprint; admin is an admin. A resource the caller may not read is a 404 whatever
the operation; one they may read but not change is a 403, as is any write by a viewer.
"""

import pytest

FULL = {"get": 200, "listed": True, "patch": 200, "put": 200, "delete": 204}
HIDDEN = {"get": 404, "listed": False, "patch": 404, "put": 404, "delete": 404}
READ_ONLY = {"get": 200, "listed": True, "patch": 403, "put": 403, "delete": 403}
VIEWER_HIDDEN = {"get": 404, "listed": False, "patch": 403, "put": 403, "delete": 403}  # role is checked first

RESOURCES = {
    "profile": ("profiles", {}),
    "owner blueprint": ("blueprints", {"entitlementType": "OWNER"}),
    "public blueprint": ("blueprints", {"entitlementType": "PUBLIC"}),
    "custom blueprint": ("blueprints", {"entitlementType": "CUSTOM", "entitledUsers": ["carol", "victor"]}),
}
MATRIX = {
    "profile": {"alice": FULL, "admin": FULL, "bob": HIDDEN, "carol": HIDDEN, "victor": VIEWER_HIDDEN},
    "owner blueprint": {"alice": FULL, "admin": FULL, "bob": HIDDEN, "carol": HIDDEN, "victor": VIEWER_HIDDEN},
    "public blueprint": {"alice": FULL, "admin": FULL, "bob": READ_ONLY, "carol": READ_ONLY, "victor": READ_ONLY},
    "custom blueprint": {"alice": FULL, "admin": FULL, "bob": HIDDEN, "carol": READ_ONLY, "victor": READ_ONLY},
}
CELLS = [(kind, user) for kind, row in MATRIX.items() for user in row]


@pytest.mark.parametrize("kind, user", CELLS)
def test_each_kind_of_caller_may_do_what_the_matrix_says_and_nothing_more(api, kind, user):
    collection, fields = RESOURCES[kind]
    expected = MATRIX[kind][user]

    def fresh():
        r = api.post(f"/{collection}", json=fields, user="alice")
        assert r.status == 201
        return f"/{collection}/{r.json['id']}", r.json["id"]

    path, id_ = fresh()
    assert api.get(path, user=user).status == expected["get"]
    listed = [item["id"] for item in api.get(f"/{collection}?limit=200", user=user).json["items"]]
    assert (id_ in listed) == expected["listed"]
    assert api.patch(path, json={"name": "changed"}, user=user).status == expected["patch"]
    path, _ = fresh()
    assert api.put(path, json={"name": "replaced"}, user=user).status == expected["put"]
    path, id_ = fresh()
    assert api.delete(path, user=user).status == expected["delete"]
    still_there = api.get(path, user="alice").status == 200
    assert still_there == (expected["delete"] != 204)


@pytest.mark.parametrize("collection", ["profiles", "blueprints"])
def test_viewers_never_create(api, collection):
    assert api.post(f"/{collection}", json={}, user="victor").status == 403


WRITES = [
    ("POST", "/profiles"),
    ("POST", "/blueprints"),
    ("PATCH", "/profiles/{p}"),
    ("PUT", "/profiles/{p}"),
    ("DELETE", "/profiles/{p}"),
    ("PATCH", "/blueprints/{b}"),
    ("PUT", "/blueprints/{b}"),
    ("DELETE", "/blueprints/{b}"),
    ("POST", "/users"),
    ("GET", "/users"),
]


@pytest.mark.parametrize("method, path", WRITES)
def test_roles_on_every_write(api, method, path):
    def target(user):
        ids = {
            "p": api.post("/profiles", json={}, user=user).json["id"],
            "b": api.post("/blueprints", json={}, user=user).json["id"],
        }
        return path.format(**ids)

    body = {"username": "newbie", "password": "long enough", "role": "member"} if path == "/users" else {}
    kwargs = {} if method in ("GET", "DELETE") else {"json": body}
    admin_only = path == "/users"
    assert api.request(method, target("alice"), user="victor", **kwargs).status == 403
    assert (api.request(method, target("alice"), user="alice", **kwargs).status == 403) == admin_only
    assert api.request(method, target("alice"), user="admin", **kwargs).status in (200, 201, 204)
