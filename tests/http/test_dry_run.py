"""`?dryRun=true` on POST, PUT and PATCH: every check runs, the answer is what would be stored,
and nothing is."""

import pytest

from app.storage.database import get_db
from support.http import assert_problem, create

WEB = "services:\n  web:\n    image: nginx\n    mem_limit: 1g\n"


def count(app, collection):
    with app.app_context():
        return get_db()[collection].count_documents({})


@pytest.mark.parametrize(
    "collection, body",
    [
        ("profiles", {"name": "p", "memoryCap": "1Gi", "defaultProfile": True}),
        ("blueprints", {"name": "b", "blueprintType": "compose", "yml": WEB}),
    ],
)
def test_a_dry_run_create_answers_what_would_be_stored(api, app, collection, body):
    r = api.post(f"/{collection}?dryRun=true", json=body, user="alice", headers={"Idempotency-Key": "k"})
    assert r.status == 200 and r.json["id"] is None and "location" not in r.headers
    assert r.json["name"] == body["name"] and r.json["owner"] == "alice"
    assert count(app, collection) == 0
    assert api.post(f"/{collection}?dryRun=false", json=body, user="alice").status == 201


def test_a_dry_run_create_shows_the_requirements_and_runs_every_check(api, app):
    r = api.post("/blueprints?dryRun=true", json={"blueprintType": "compose", "yml": WEB}, user="alice")
    assert r.json["requirements"]["memoryBytes"] == 1024**3
    bad = api.post("/blueprints?dryRun=true", json={"blueprintType": "compose", "yml": "services: []"}, user="alice")
    assert "yml" in assert_problem(bad, 422)["errors"]
    assert_problem(api.post("/profiles?dryRun=true", json={"memoryCap": "lots"}, user="alice"), 422)
    assert_problem(api.post("/profiles?dryRun=true", json={}, user="victor"), 403)
    assert_problem(api.post("/profiles?dryRun=yes", json={}, user="alice"), 422)
    assert count(app, "blueprints") == count(app, "profiles") == 0


@pytest.mark.parametrize("method", ["patch", "put"])
def test_a_dry_run_change_stores_nothing(api, method):
    created = create(api, "profiles", name="before", defaultProfile=True)
    path, tag = f"/profiles/{created.json['id']}", created.headers["etag"]
    other = create(api, "profiles", name="other").json
    r = getattr(api, method)(
        f"/profiles/{other['id']}?dryRun=true", json={"name": "after", "defaultProfile": True}, user="alice"
    )
    assert r.status == 200 and r.json["name"] == "after" and r.json["defaultProfile"] is True
    assert api.get(path, user="alice").json["defaultProfile"] is True  # no demotion happened
    assert api.get(path, user="alice").headers["etag"] == tag
    assert api.get(f"/profiles/{other['id']}", user="alice").json["name"] == "other"
    assert_problem(
        getattr(api, method)(f"{path}?dryRun=true", json={"name": "x"}, user="alice", headers={"If-Match": '"9"'}), 412
    )


def test_a_dry_run_checks_the_idempotency_key_without_claiming_it(api, app):
    bad = api.post("/profiles?dryRun=true", json={}, user="alice", headers={"Idempotency-Key": "caf\u00e9"})
    assert "Idempotency-Key" in assert_problem(bad, 422)["errors"]
    first = api.post("/profiles?dryRun=true", json={"name": "a"}, user="alice", headers={"Idempotency-Key": "k"})
    real = api.post("/profiles", json={"name": "b"}, user="alice", headers={"Idempotency-Key": "k"})
    assert first.status == 200 and real.status == 201 and real.json["name"] == "b"  # the key was still free
