"""A blueprint's page in headless Chromium: what it needs, its fit to each profile on a Docker host
and on a cluster, its history with the changes between two versions, download, restore, and the
routes it declares."""

from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select

from support import corpus
from support.pages import MARKS, TEMPLATE
from support.walk import WIDER

pytestmark = MARKS


def test_a_blueprint_shows_its_needs_fits_history_and_restores(person, seeded):
    """The template after a change of its version: revision 2, its fits, its history."""
    w, (client, template, profiles, *_) = person, seeded
    assert client.patch(f"/blueprints/{template['id']}", json={"version": "1.5"}, user="alice").status == 200
    w.go(f"#/blueprints/{template['id']}")
    w.sign_in("alice")
    w.wait(lambda: w.heading() == TEMPLATE["name"] and len(w.all("section[aria-label=History] tbody tr")) == 2)
    assert len(w.all("ol.code li")) == len(TEMPLATE["yml"].rstrip("\n").split("\n"))
    assert [li.text for li in w.all("ol.code li")][:2] == TEMPLATE["yml"].split("\n")[:2]
    requirements = template["requirements"]
    assert (requirements["containers"], requirements["memoryBytes"], requirements["cpuMillis"]) == (5, 2**30, 1000)
    assert "5 containers, at least 1 GiB, at least 1 CPU" in w.one("section[aria-label=Requirements]").text
    assert "cache: memory" in w.one("section[aria-label=Requirements]").text
    fits = w.one("section[aria-label='Fit to your profiles']")
    headings = [h.text for h in fits.find_elements(By.CSS_SELECTOR, "h3")]
    # the default first (fitted with no profile named: the service's default), then newest first
    with_defaults = "with the profile's defaults of 256 MiB for 3 containers and 0.25 CPU for 3 containers"
    assert headings == ["team (your default) does not fit", "tiny does not fit", f"roomy fits {with_defaults}"]
    assert "memory: cache, db, worker — declare none and count the profile's container default" in fits.text
    asked = w.browser.execute_script("return performance.getEntriesByType('resource').map((e) => e.name)")
    assert any(url.endswith(f"/blueprints/{template['id']}/fit") for url in asked)
    assert "exceeds" in fits.text and "unbounded" in fits.text
    priced = client.get(f"/blueprints/{template['id']}/fit?profile={profiles['roomy']['id']}", user="alice").json
    assert [p.text for p in fits.find_elements(By.CSS_SELECTOR, "p.cost")] == [
        f"would cost {priced['cost']['monthly']:.2f} EUR a month"  # roomy's defaults price what declares none
    ]
    assert not w.browser.execute_script(WIDER), "a fit table scrolls sideways"
    w.check_page("blueprint")

    # deployed on a cluster, its named volume db-data is a claim of 1 GiB
    def stored():
        return [
            row.text
            for row in fits.find_elements(By.CSS_SELECTOR, "table.fit tbody tr")
            if row.text.startswith("storage")
        ]

    assert len(stored()) == 3 and all(row.startswith("storage 0 B") for row in stored()), stored()
    Select(w.control("Deployed on")).select_by_visible_text("a Kubernetes cluster")
    w.wait(lambda: len(stored()) == 3 and all(row.startswith("storage 1 GiB") for row in stored()))
    w.check_page("blueprint-on-a-cluster")
    w.button("Show the changes").click()
    w.wait(lambda: "Changes from revision 1 to 2" in w.one("main").text)
    change = w.one("section[aria-label=History] section[aria-label=Changes] table")
    assert "version" in change.text and '"1.4.2"' in change.text and '"1.5"' in change.text
    w.button("Download YAML").click()
    downloaded = w.downloads / f"{TEMPLATE['name']}.yml"
    w.wait(lambda: downloaded.exists() and downloaded.read_text() == TEMPLATE["yml"])
    w.view(lambda: w.one("button[aria-label='Restore revision 1']").click())
    w.wait(lambda: "revision 3 by alice" in w.one("main p.meta").text and "version 1.4.2" in w.one("main p.meta").text)


def test_a_blueprint_that_says_where_it_answers_shows_its_routes(person, seeded):
    """Its routes as URLs, the service and port each reaches."""
    w, (client, *_) = person, seeded
    routed = (
        corpus.text("compose/gitea-postgres") + "x-routes:\n  - {service: gitea, port: 3000, host: git.example.com}\n"
    )
    body = {"name": "gitea", "blueprintType": "compose", "yml": routed + "  - {service: db, port: 5432, tls: false}\n"}
    made = client.post("/blueprints", json=body, user="alice").json
    w.go(f"#/blueprints/{made['id']}")
    w.sign_in("alice")
    w.wait(lambda: w.heading() == "gitea")
    shown = [li.text for li in w.all("section[aria-label=Routes] li")]
    assert shown == ["https://git.example.com → gitea:3000", "http://(any host) → db:5432"]
    w.check_page("blueprint-routes")
