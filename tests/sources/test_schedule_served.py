"""The schedule as operators run it: under gunicorn, every worker looks for due sources, and a due
source is synced once."""

import time
from datetime import UTC, datetime, timedelta

import pytest
from pymongo import MongoClient

from app.storage import embedded
from support import corpus
from support.git_servers import forge, repository  # noqa: F401 (fixtures)
from support.http import SocketClient, basic
from support.ports import free_port
from support.processes import Gunicorn

ADMIN = ("admin", "change-me-now")
AUTH = {"Authorization": basic(*ADMIN)}
pytestmark = pytest.mark.slow


def test_under_gunicorn_a_due_source_is_synced_once_by_the_workers_schedule(tmp_path, forge, repository):  # noqa: F811
    commit = repository.commit("catalog", corpus.dokploy_files("ghost"))
    database, uri = embedded.launch(str(tmp_path / "data"), free_port())
    settings = {"MONGO_URI": uri, "MONGO_DB": "scheduled", "ADMIN_USERNAME": ADMIN[0], "ADMIN_PASSWORD": ADMIN[1]}
    settings |= {"WEB_CONCURRENCY": 2, "SOURCE_HOSTS": f"127.0.0.1:{forge.nginx.port}", "SOURCE_PRIVATE": "on"}
    service = Gunicorn(**settings, GIT_SSL_CAINFO=forge.certificate).start()
    try:
        client = SocketClient(service.port)
        body = {"url": forge.url(repository), "format": "dokploy", "interval": 3600}
        source = client.post("/sources", json=body, headers=AUTH).json
        due = datetime.now(UTC) - timedelta(seconds=1)  # an hour early: due now
        MongoClient(uri).scheduled.sources.update_one({}, {"$set": {"nextSyncAt": due}})
        deadline = time.monotonic() + 90
        while (client.get(f"/sources/{source['id']}", headers=AUTH).json["lastSync"] or {}).get("state") != "done":
            assert time.monotonic() < deadline, "the schedule did not sync the due source"
            time.sleep(0.5)
        last = client.get(f"/sources/{source['id']}", headers=AUTH).json["lastSync"]
        assert last["commit"] == commit and last["counts"]["created"] == 1
        jobs = list(MongoClient(uri).scheduled.jobs.find({"source": source["id"]}))
        assert len(jobs) == 1 and jobs[0]["startedBy"] == "admin"  # once, by whoever wrote it
        listed = client.get("/blueprints", headers=AUTH).json["items"]
        assert [item["source"]["key"] for item in listed] == ["ghost"]
    finally:
        service.stop()
        database.terminate()
        database.wait()
