"""A forge's push webhook: GitHub's, GitLab's and Gitea's deliveries, each signed with the
source's secret, start a sync of the ref it follows; a wrong signature or an unknown source is a
401 that changes nothing; a ping, a push to another ref and a delivery taken already do nothing."""

import json

import pytest

from support import corpus
from support.http import assert_problem
from support.jobs import ended
from support.webhooks import SECRET, deliver, push, signed_headers


@pytest.fixture
def source(api, follows, forge, repository):
    repository.commit("catalog", corpus.dokploy_files("ghost"))
    made = api.post(
        "/sources", json={"url": forge.url(repository), "format": "dokploy", "secret": SECRET}, user="alice"
    )
    assert made.status == 201 and made.json["hasSecret"] is True and SECRET not in made.body.decode()
    return made.json


@pytest.mark.parametrize("forge_name", ["github", "gitlab", "gitea"])
def test_a_signed_push_syncs_and_a_wrong_signature_is_a_401_that_changes_nothing(api, source, forge_name):
    body = push(forge_name=forge_name)
    raw = json.dumps(body).encode()
    forged = deliver(api, source, body, signed_headers(forge_name, raw, secret="not-the-secret-at-all"))
    assert_problem(forged, 401)
    assert api.get(f"/sources/{source['id']}", user="alice").json["lastSync"] is None
    taken = deliver(api, source, body, signed_headers(forge_name, raw))
    assert taken.status == 202 and taken.json["job"]["kind"] == "sync", taken.json
    job = ended(api, taken.json["job"]["id"])
    assert job["state"] == "done" and job["report"]["counts"]["created"] == 1
    assert job["startedBy"] == "alice"  # who last wrote the source


def test_what_a_webhook_does_nothing_for(api, source):
    body = push()
    raw = json.dumps(body).encode()
    headers = signed_headers("github", raw)
    assert_problem(deliver(api, {"id": "0123456789abcdef01234567"}, body, headers), 401)  # no such source
    assert_problem(deliver(api, {"id": "nope"}, body, headers), 401)
    unsigned = {key: value for key, value in headers.items() if key != "X-Hub-Signature-256"}
    assert_problem(deliver(api, source, body, unsigned), 401)
    ping = deliver(api, source, body, signed_headers("github", raw, event="ping"))
    assert ping.status == 202 and ping.json["job"] is None
    other = push("refs/heads/feature")
    elsewhere = deliver(api, source, other, signed_headers("github", json.dumps(other).encode()))
    assert elsewhere.status == 202 and elsewhere.json["job"] is None and "another ref" in elsewhere.json["detail"]
    first = deliver(api, source, body, headers)
    assert first.status == 202 and first.json["job"] is not None
    finished_job = ended(api, first.json["job"]["id"])
    again = deliver(api, source, body, headers)  # the same delivery, replayed
    assert again.status == 202 and again.json["job"] is None and "taken already" in again.json["detail"]
    assert finished_job["state"] == "done"
    form = api.post(
        f"/sources/{source['id']}/webhook",
        data=b"payload=%7B%7D",
        headers={"Content-Type": "application/x-www-form-urlencoded"},
    )
    assert_problem(form, 415)
