from concurrent.futures import ThreadPoolExecutor

import pytest

# Real sockets only: mongomock is not a concurrent database.
pytestmark = pytest.mark.parametrize("app", ["socket"], indirect=True)


def test_twenty_simultaneous_defaults_all_succeed_and_leave_one(api, app):
    def create(i):
        return api.post("/profiles", json={"name": f"p{i}", "defaultProfile": True}, user="alice")

    with ThreadPoolExecutor(max_workers=20) as pool:
        responses = list(pool.map(create, range(20)))
    assert [r.status for r in responses] == [201] * 20
    ids = {r.json["id"] for r in responses}
    assert len(ids) == 20

    with app.app_context():
        from app.database import get_db
        docs = list(get_db().profiles.find({"owner": "alice"}))
    assert {str(d["_id"]) for d in docs} == ids
    assert sum(d["defaultProfile"] for d in docs) == 1
    default = next(str(d["_id"]) for d in docs if d["defaultProfile"])
    assert api.get(f"/profiles/{default}", user="alice").json["defaultProfile"] is True
