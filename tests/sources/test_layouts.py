"""What a source's folder holds, for each format, is what `bpctl import` sends for that folder: a
sync of a repository laid out as each platform keeps its catalog (or as people keep a Compose
file, OpenShift templates, a Portainer catalog with its stack files) reports what a direct import
of the same templates reports."""

import json

import pytest

from support import corpus
from support.imports import imported
from support.jobs import finished


def coolify_or_caprover(platform, below, names):
    catalog = corpus.platform_catalog(platform)
    return {f"{below}/{name}.yml": catalog[name] for name in names}, {name: catalog[name] for name in sorted(names)}


def layouts():
    coolify_files, coolify = coolify_or_caprover("coolify", "templates/compose", ["activepieces", "actualbudget"])
    caprover_files, caprover = coolify_or_caprover("caprover", "public/v4/apps", ["activepieces", "Home-Assistant"])
    openshift = corpus.openshift_templates()
    chosen = ["httpd-example.json", "mysql-ephemeral.json"]
    portainer = corpus.portainer_catalog("portainer-templates-v3.json")
    stacks = corpus.portainer_files()
    return {
        "coolify": ("", coolify_files, {}, coolify, {}),
        "caprover": ("", {**caprover_files, "README.md": "# apps"}, {}, caprover, {}),
        "openshift": (
            "templates",
            {**{f"templates/{name}": json.dumps(openshift[name]) for name in chosen}, "templates/README.md": "x"},
            {},
            [openshift[name] for name in chosen],
            {},
        ),
        "compose": (
            "gitea",
            {"gitea/docker-compose.yml": corpus.text("compose/gitea-postgres"), "gitea/.env": "GITEA_TAG=1.21\n"},
            {"name": "gitea"},
            corpus.text("compose/gitea-postgres"),
            {".env": "GITEA_TAG=1.21\n"},
        ),
        "portainer": (
            "",
            {"templates.json": json.dumps(portainer), **stacks},
            {},
            json.dumps(portainer),
            stacks,
        ),
    }


@pytest.mark.parametrize("fmt", ["coolify", "caprover", "openshift", "compose", "portainer"])
def test_a_sync_imports_a_folder_as_bpctl_import_would(api, follows, forge, repository, fmt):
    path, tree, defaults, document, files = layouts()[fmt]
    commit = repository.commit(f"a {fmt} catalog", tree)
    source = api.post("/sources", json={"url": forge.url(repository), "format": fmt, "path": path}, user="alice")
    assert source.status == 201, source.json
    job = finished(api, api.post(f"/sources/{source.json['id']}/sync", json={}, user="alice"))
    assert job["state"] == "done" and job["report"]["commit"] == commit, job
    direct = imported(api, fmt, document, source="direct", files=files, defaults=defaults, dry_run=True)
    synced = [(r["key"], r["outcome"], r["problems"]) for r in job["report"]["results"]]
    assert synced == [(r["key"], r["outcome"], r["problems"]) for r in direct["results"]]
    assert job["report"]["counts"]["created"] >= 1


def test_an_export_syncs_back_and_a_folder_without_the_format_says_so(api, follows, forge, repository):
    from support.http import create

    create(api, "blueprints", name="kept", blueprintType="compose", yml="services:\n  web:\n    image: nginx\n")
    exported = api.get("/exports", user="alice").body.decode()
    repository.commit("an export, and a folder with no Compose file", {"export.json": exported, "empty/README.md": "x"})
    native = api.post("/sources", json={"url": forge.url(repository), "format": "native"}, user="bob").json
    job = finished(api, api.post(f"/sources/{native['id']}/sync", json={}, user="bob"), "bob")
    assert job["state"] == "done" and job["report"]["counts"]["created"] == 1  # bob's copy of alice's export
    body = {"url": forge.url(repository), "format": "compose", "path": "empty"}
    compose = api.post("/sources", json=body, user="bob").json
    failed = finished(api, api.post(f"/sources/{compose['id']}/sync", json={}, user="bob"), "bob")
    assert failed["state"] == "failed" and "No Compose file here" in failed["error"]
    assert api.get(f"/sources/{compose['id']}", user="bob").json["lastSync"]["error"] == failed["error"]
