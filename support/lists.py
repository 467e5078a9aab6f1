"""Lists as tests read them: every page of a walk, and blueprints spread in time."""


def walk(api, path, user="alice"):
    """Every item of every page, following `next`, checking that `Link` mirrors it."""
    seen, url = [], path
    while True:
        r = api.get(url, user=user)
        assert r.status == 200, r.json
        seen += r.json["items"]
        cursor = r.json["next"]
        if cursor is None:
            assert "link" not in r.headers
            return seen
        link = r.headers["link"]
        assert link.endswith('>; rel="next"') and f"cursor={cursor}" in link
        url = link[1 : link.index(">")]


def seed_spread(app, count, owner="alice", hours=20):
    """`count` blueprints written straight into the database, created an hour apart (oldest
    first), readable by `owner` only, as the service stores them; their ids, newest first."""
    from datetime import timedelta

    from app.blueprints.storage import store
    from app.storage import ids
    from app.storage.database import get_db, now

    moment, made = now(), []
    with app.app_context():
        for i in range(count):
            created = moment - timedelta(hours=hours * (count - i) / count)
            doc = {
                "_id": ids.new_id(created),
                "name": f"spread{i}",
                "description": None,
                "owner": owner,
                "entitlementType": "OWNER",
                "entitledUsers": [],
                "inactive": False,
                "blueprintType": None,
                "version": None,
                "yml": None,
                "requirements": None,
                "createdAt": created,
                "updatedAt": created,
                "updatedBy": owner,
                "rev": 1,
            }
            get_db().blueprints.insert_one({**doc, "keys": store.keys(doc)})
            made.append(str(doc["_id"]))
    return made[::-1]
