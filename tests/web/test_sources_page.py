"""The page keeps catalogs current, as a person would use it in headless Chromium: a source
followed from a real git server and synced with its progress and report; the instances behind a
blueprint marked, a chosen one's upgrade shown, then made. Screenshots go to
test-output/web/<width>/."""

import pytest

from support import corpus
from support.browser import chromium
from support.git_servers import forge, reaching, repository  # noqa: F401 (fixtures)
from support.http import FlaskClient
from support.instances import PARAMETERS, TEAM, WEB
from support.walk import Walk

pytestmark = pytest.mark.parametrize("app", ["mongomock"], indirect=True)


@pytest.mark.slow
@pytest.mark.browser
@pytest.mark.parametrize("width", [1280, 390])
def test_a_person_follows_a_catalog_and_brings_instances_up_to_date(
    app,
    live_port,
    forge,  # noqa: F811
    repository,  # noqa: F811
    monkeypatch,
    tmp_path,
    width,
):
    reaching(app, forge, monkeypatch)
    commit = repository.commit("two templates", corpus.dokploy_files("ghost", "plausible"))
    client = FlaskClient(app)
    browser = chromium(tmp_path, width=width, height=900)
    try:
        w = Walk(browser, live_port, width, tmp_path / "downloads")
        w.go("#/sources")
        w.sign_in("alice")
        w.wait(lambda: w.heading() == "Sources" and "No source yet." in w.one("main").text)
        w.fill("Repository URL", forge.url(repository))
        w.view(lambda: w.button("Follow").click())
        w.wait(lambda: "Never synced" in w.one("ul[aria-label=Sources]").text)
        w.button("Sync now").click()
        w.wait(lambda: f"Synced at {commit[:12]}." in w.one("main").text, timeout=60)
        w.wait(lambda: f"at {commit[:12]}: 2 created" in w.one("ul[aria-label=Sources]").text)  # said anew
        report = w.one("table[aria-label='What the import did']").text
        assert "Ghost" in report and "Plausible" in report and report.count("created") == 2
        w.check_page("sources")
        w.view(lambda: w.browser.refresh())
        w.wait(lambda: f"at {commit[:12]}: 2 created" in w.one("ul[aria-label=Sources]").text)

        # two instances of a blueprint, which then changes: both marked, one chosen and upgraded
        web = client.post(
            "/blueprints",
            json={"name": "web", "blueprintType": "compose", "yml": WEB, "parameters": PARAMETERS},
            user="alice",
        ).json
        team = client.post("/profiles", json=TEAM, user="alice").json
        for name in ("shop", "blog"):
            body = {"name": name, "blueprint": web["id"], "profile": team["id"]}
            assert client.post("/instances", json=body, user="alice").status == 201
        changed = {"yml": WEB.replace("nginx:", "nginx-new:")}
        assert client.patch(f"/blueprints/{web['id']}", json=changed, user="alice").status == 200
        w.view(lambda: w.go(f"#/blueprints/{web['id']}"))
        w.wait(lambda: "2 instances, 2 behind revision 2." in w.one("section[aria-label=Instances]").text)
        assert len(w.all("section[aria-label=Instances] .badge.warn")) == 2
        w.one("input[aria-label='Choose blog']").click()  # not this one
        w.button("Show the upgrade of the chosen").click()
        w.wait(lambda: w.all("table[aria-label='What the upgrade would do'] tbody tr"))
        rows = w.all("table[aria-label='What the upgrade would do'] tbody tr")
        assert [row.text.split()[:4] for row in rows] == [["shop", "1", "→", "2"]] and "would upgrade" in rows[0].text
        assert "+    image: nginx-new:1.27" in w.one("section[aria-label=Instances] pre").text
        w.check_page("blueprint-upgrade")
        # revision 3 published meanwhile: the upgrade makes what was shown, revision 2
        newer = {"yml": WEB.replace("nginx:", "nginx-newer:")}
        assert client.patch(f"/blueprints/{web['id']}", json=newer, user="alice").status == 200
        w.view(lambda: w.button("Upgrade the chosen").click())
        w.wait(lambda: "2 instances, 2 behind revision 3." in w.one("section[aria-label=Instances]").text)
        assert "1 of 1 upgraded." in w.one("#status").text
        revs = {i["name"]: i["rev"] for i in client.get("/instances", user="alice").json["items"]}
        assert revs == {"shop": 2, "blog": 1}
        w.console()
    finally:
        browser.quit()
