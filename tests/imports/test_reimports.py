"""Importing a catalog again, as its owner changed some of it meanwhile: a blueprint changed here
is a `conflict` (kept as its owner made it, with the diff) until its owner restores the revision
the import wrote; a template no longer in the catalog is `gone`; a catalog's import runs as a job
(`?async=true`), its progress read at /jobs/{id} by its starter and admins alone."""

import copy

from support import corpus
from support.http import assert_problem
from support.imports import by_key, imported
from support.jobs import finished


def dokploy(*names):
    catalog = corpus.dokploy_catalog()
    return {name: copy.deepcopy(catalog[name]) for name in names}


def test_a_blueprint_changed_here_is_a_conflict_until_its_owner_restores_what_the_import_wrote(api):
    catalog = dokploy("ghost", "plausible")
    ghost = by_key(imported(api, "dokploy", catalog))["ghost"]
    edited = api.get(f"/blueprints/{ghost['id']}", user="alice").json["yml"].replace("ghost:6-alpine", "ghost:6.1")
    assert api.patch(f"/blueprints/{ghost['id']}", json={"yml": edited}, user="alice").status == 200
    again = by_key(imported(api, "dokploy", catalog))
    assert again["ghost"]["outcome"] == "conflict"  # the catalog's template and this one differ
    assert again["ghost"]["diff"].startswith("--- rev 2 (here)\n+++ the source\n")
    catalog["ghost"]["docker-compose.yml"] = catalog["ghost"]["docker-compose.yml"].replace("mysql:8.0", "mysql:8.4")
    third = imported(api, "dokploy", catalog)
    assert third["counts"]["conflict"] == 1 and by_key(third)["plausible"]["outcome"] == "unchanged"
    conflict = by_key(third)["ghost"]
    assert conflict["outcome"] == "conflict" and conflict["id"] == ghost["id"]
    assert "-    image: ghost:6.1\n+    image: ghost:6-alpine\n" in conflict["diff"]
    assert "-    image: mysql:8.0\n+    image: mysql:8.4\n" in conflict["diff"]
    kept = api.get(f"/blueprints/{ghost['id']}", user="alice").json
    assert kept["rev"] == 2 and "ghost:6.1" in kept["yml"]  # the owner's change stays
    restored = api.post(f"/blueprints/{ghost['id']}/revisions/1/restore", user="alice")
    assert restored.status == 200 and restored.json["rev"] == 3
    fourth = by_key(imported(api, "dokploy", catalog))
    assert fourth["ghost"]["outcome"] == "updated"
    now = api.get(f"/blueprints/{ghost['id']}", user="alice").json
    assert now["rev"] == 4 and "mysql:8.4" in now["yml"] and "ghost:6-alpine" in now["yml"]


def test_a_template_no_longer_in_the_catalog_is_gone_and_kept(api):
    catalog = dokploy("ghost", "plausible")
    made = by_key(imported(api, "dokploy", catalog))
    del catalog["plausible"]
    report = imported(api, "dokploy", catalog)
    assert report["counts"]["gone"] == 1 and report["counts"]["unchanged"] == 1
    gone = by_key(report)["plausible"]
    assert gone["outcome"] == "gone" and gone["id"] == made["plausible"]["id"] and gone["title"] == "Plausible"
    assert api.get(f"/blueprints/{gone['id']}", user="alice").status == 200
    assert by_key(imported(api, "dokploy", catalog, source="other"))["ghost"]["outcome"] == "created"


def test_a_catalogs_import_runs_as_a_job_read_by_its_starter_and_admins(api):
    catalog = corpus.dokploy_catalog()
    dry = imported(api, "dokploy", catalog, source="all", dry_run=True)
    started = api.post(
        "/imports?async=true", json={"format": "dokploy", "source": "all", "document": catalog}, user="alice"
    )
    job = finished(api, started)
    assert job["state"] == "done" and job["kind"] == "import" and job["startedBy"] == "alice"
    assert job["done"] == job["total"] == len(catalog)
    assert [result["key"] for result in job["report"]["results"]] == list(catalog)
    outcomes = [result["outcome"] for result in job["report"]["results"]]
    assert outcomes == [result["outcome"] for result in dry["results"]] and job["report"]["counts"] == dry["counts"]
    assert api.get(f"/jobs/{job['id']}", user="admin").status == 200
    assert_problem(api.get(f"/jobs/{job['id']}", user="bob"), 404)
    assert_problem(api.get("/jobs/0123456789abcdef01234567", user="alice"), 404)
    listed = api.get("/blueprints?limit=200&q=ghost", user="alice").json["items"]
    assert [item["source"]["key"] for item in listed] == ["ghost"]


def test_an_async_import_of_a_document_not_of_its_format_is_refused_before_a_job_starts(api):
    refused = api.post(
        "/imports?async=true", json={"format": "dokploy", "source": "x", "document": "nope"}, user="alice"
    )
    assert "document" in assert_problem(refused, 422)["errors"]


def test_a_templates_own_tags_stay_when_the_import_adds_none(api):
    """The web page sends `tags: []` when its field is empty: a Coolify template's `# tags:` stayed out."""
    template = corpus.platform_catalog("coolify")["activepieces"]
    alone = by_key(imported(api, "coolify", {"activepieces": template}, source="a"))["activepieces"]
    empty = by_key(imported(api, "coolify", {"activepieces": template}, source="b", defaults={"tags": []}))
    more = by_key(imported(api, "coolify", {"activepieces": template}, source="c", defaults={"tags": ["ours"]}))
    tags = api.get(f"/blueprints/{alone['id']}", user="alice").json["tags"]
    assert tags and api.get(f"/blueprints/{empty['activepieces']['id']}", user="alice").json["tags"] == tags
    assert api.get(f"/blueprints/{more['activepieces']['id']}", user="alice").json["tags"] == [*tags, "ours"]


def test_a_dry_run_as_a_job_reports_as_the_answer_would(api):
    """A dry run's report carries each blueprint as it would be left: kept by a job as the answer
    says it (a stored one's id once made its read a 500)."""
    catalog = dokploy("ghost")
    imported(api, "dokploy", catalog)
    body = {"format": "dokploy", "source": "catalog", "document": catalog}
    job = finished(api, api.post("/imports?async=true&dryRun=true", json=body, user="alice"))
    direct = imported(api, "dokploy", catalog, dry_run=True)
    assert job["state"] == "done" and job["report"] == direct
    assert job["report"]["results"][0]["blueprint"]["id"] == direct["results"][0]["id"]


def test_a_blueprint_detached_from_its_import_is_left_be(api):
    catalog = dokploy("ghost")
    ghost = by_key(imported(api, "dokploy", catalog))["ghost"]
    edited = api.get(f"/blueprints/{ghost['id']}", user="alice").json["yml"].replace("ghost:6-alpine", "ghost:6.1")
    assert api.patch(f"/blueprints/{ghost['id']}", json={"yml": edited}, user="alice").status == 200
    assert by_key(imported(api, "dokploy", catalog))["ghost"]["outcome"] == "conflict"
    refused = api.patch(f"/blueprints/{ghost['id']}", json={"source": {"format": "x"}}, user="alice")
    assert "source" in assert_problem(refused, 422)["errors"]
    detached = api.patch(f"/blueprints/{ghost['id']}", json={"source": None}, user="alice")
    assert detached.status == 200 and detached.json["source"] is None and "ghost:6.1" in detached.json["yml"]
    again = by_key(imported(api, "dokploy", catalog))["ghost"]
    assert again["outcome"] == "created" and again["id"] != ghost["id"]  # the catalog's own, beside the one kept
    assert "ghost:6.1" in api.get(f"/blueprints/{ghost['id']}", user="alice").json["yml"]
