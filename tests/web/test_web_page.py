"""The web page at /: its headers and weight over HTTP, then a walk through every page and action
in headless Chromium, as a person would click, on a 1280-pixel and on a 390-pixel wide window.

The walk fails on any console error (a script error, a refused Content Security Policy, a failed
load) but the refusals a step provokes on purpose (a wrong password, a dry run with problems, a
conflict). Screenshots of each page go to test-output/web/<width>/.
"""

import json
import re
from pathlib import Path

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import Select

from support import compose_oracle, corpus
from support.browser import chromium
from support.http import FlaskClient
from support.walk import WIDER, Walk

BODIES = Path(__file__).resolve().parents[2] / "bench" / "bodies"
BLUEPRINT = json.loads((BODIES / "blueprint.json").read_text())
TEMPLATE = json.loads((BODIES / "template.json").read_text())
XSS_NAME = "<img src=x onerror=alert(1)>"
XSS_DESCRIPTION = "<script>alert(2)</script>"
# the second line is wider than a phone
XSS_YML = "note: '</script><script>alert(3)</script>'\nlong: " + "a-long-value " * 40 + "\n"
STACKS = 52  # more than a page of 50
# a service whose CPU is a variable the template does not declare: measured as unresolved
MADE = "services:\n  web:\n    image: nginx\n    mem_limit: 256m\n  cache:\n    image: redis\n    cpus: ${CACHE_CPUS}\n"
MOST_WEIGHT = 300_000
STATIC = Path(__file__).resolve().parents[2] / "app" / "web" / "static"
# a Compose file an import turns into a blueprint with parameters (its .env gives TAG)
IMPORTED = (
    "services:\n  db:\n    image: postgres:${TAG:-16}\n    deploy:\n      replicas: ${REPLICAS:-1}\n"
    "    environment:\n      POSTGRES_PASSWORD: ${POSTGRES_PASSWORD}\n"
)
pytestmark = pytest.mark.parametrize("app", ["mongomock"], indirect=True)


# ---- over HTTP -------------------------------------------------------------------------------


def test_the_page_and_its_assets_carry_a_strict_policy_and_need_no_credentials(app):
    client = FlaskClient(app)
    page = client.get("/")
    assert page.status == 200 and page.headers["content-type"].startswith("text/html")
    assets = ["/" + path for path in re.findall(r'(?:src|href)="(web/[^"]+)"', page.body.decode())]
    assert {"/web/app.js", "/web/app.css", "/web/icon.svg"} <= set(assets)
    assert not re.search(r'(?:src|href)="/', page.body.decode())  # relative: it works under a path prefix
    for response in [page, *(client.get(path) for path in assets)]:
        assert response.status == 200
        policy = dict(part.split(" ", 1) for part in response.headers["content-security-policy"].split("; "))
        assert policy["default-src"] == "'self'" and policy["script-src"] == "'self'"
        assert (
            policy["frame-ancestors"] == "'none'" and "unsafe-inline" not in response.headers["content-security-policy"]
        )
        assert response.headers["x-frame-options"] == "DENY"
        assert response.headers["x-content-type-options"] == "nosniff"


def test_the_page_weighs_less_than_300_kb_and_loads_nothing_from_another_host(app):
    client = FlaskClient(app)
    page = client.get("/")
    linked = ["/" + path for path in re.findall(r'(?:src|href)="(web/[^"]+)"', page.body.decode())]
    modules = [f"/web/{path.name}" for path in sorted(STATIC.glob("*.js"))]  # app.js imports the others
    assert "/web/app.js" in linked and "/web/api.js" in modules
    assets = [client.get(path) for path in {*linked, *modules}]
    assert all(asset.status == 200 for asset in assets)
    assert len(page.body) + sum(len(asset.body) for asset in assets) < MOST_WEIGHT
    for response in [page, *assets]:
        text = response.body.replace(b'xmlns="http://www.w3.org/2000/svg"', b"")  # a name, never loaded
        assert not re.search(rb"https?://|//[a-z0-9.-]+\.[a-z]{2,}/", text), "a reference to another host"


def test_an_unknown_asset_is_a_404_problem_and_the_api_paths_are_unchanged(app):
    client = FlaskClient(app)
    assert client.get("/web/nothing.js").status == 404
    assert client.get("/web/../__init__.py").status == 404
    assert client.get("/blueprints").status == 401  # the API still asks for credentials


# ---- in a browser ----------------------------------------------------------------------------


def seed(app):
    """What alice and bob have made: more than a page of stacks, a template, a blueprint whose
    name and definition try to inject markup, and three profiles of alice's; the operator prices."""
    app.config.update(PRICES="cpu=20,memoryGiB=5,storageGiB=0.1,currency=EUR")
    client = FlaskClient(app)
    for i in range(STACKS):
        tags = ["web", "db"] if i % 2 else ["web"]
        assert (
            client.post("/blueprints", json={**BLUEPRINT, "name": f"stack-{i:02d}", "tags": tags}, user="alice").status
            == 201
        )
    template = client.post("/blueprints", json=TEMPLATE, user="alice").json
    evil = {"name": XSS_NAME, "description": XSS_DESCRIPTION, "yml": XSS_YML, "entitlementType": "PUBLIC"}
    assert client.post("/blueprints", json=evil, user="bob").status == 201
    profiles = {}
    for name, caps in {
        "team": {"memoryCap": "4Gi", "cpuCap": "4"},
        "roomy": {
            "containerCap": "10",
            "memoryCap": "8Gi",
            "cpuCap": "8",
            "containerDefaults": {"memory": "256Mi", "cpu": "0.25"},
            "containerMax": {"memory": "2Gi"},
        },
        "tiny": {"containerCap": "4"},
    }.items():
        profiles[name] = client.post(
            "/profiles", json={"name": name, **caps, "defaultProfile": name == "team"}, user="alice"
        ).json
    return client, template, profiles


@pytest.mark.slow
@pytest.mark.browser
@pytest.mark.parametrize("width", [1280, 390])
def test_a_person_walks_through_every_page(app, live_port, tmp_path, width):
    client, template, profiles = seed(app)
    browser = chromium(tmp_path, width=width, height=900)
    try:
        walk(Walk(browser, live_port, width, tmp_path / "downloads"), client, template, profiles)
    finally:
        browser.quit()


def walk(w, client, template, profiles):
    total = STACKS + 2

    # Sign in: a wrong password is said so; then the catalog, newest first, 50 and "More"
    w.go("")
    w.sign_in("alice", "not the password")
    w.wait(lambda: w.one("#sign-in-error").text == "Wrong username or password.")
    w.console(401)
    w.sign_in("alice")
    w.wait(lambda: len(w.cards()) == 50)
    assert Select(w.control("Profile to fit")).first_selected_option.text == "team (default)"
    w.wait(lambda: all(c.find_elements(By.CSS_SELECTOR, ".badge") for c in w.cards()))  # fitted to it
    names = [c.find_element(By.CSS_SELECTOR, "h3 a").text for c in w.cards()]
    assert names[:3] == [XSS_NAME, TEMPLATE["name"], f"stack-{STACKS - 1:02d}"]
    evil = w.card(XSS_NAME)
    assert XSS_DESCRIPTION in evil.text and "Not measured" in evil.text
    assert evil.find_element(By.CSS_SELECTOR, ".badge").text == "not measured"
    stack = w.card(f"stack-{STACKS - 1:02d}")
    assert "4 containers, at least 512 MiB, at least 0.5 CPU" in stack.text and "web" in stack.text
    w.check_page("catalog")
    w.button("More").click()
    w.wait(lambda: len(w.cards()) == total)
    assert not w.button("More").is_displayed()

    # Search and filters go into the URL: a bookmark shows the same view
    w.view(lambda: w.fill("Search", "template").send_keys(Keys.ENTER))
    w.wait(lambda: [c.find_element(By.CSS_SELECTOR, "h3 a").text for c in w.cards()] == [TEMPLATE["name"]])
    assert "q=template" in w.browser.current_url
    bookmark = w.browser.current_url
    w.browser.get("about:blank")
    w.browser.get(bookmark)
    w.wait(lambda: len(w.cards()) == 1 and w.control("Search").get_attribute("value") == "template")
    w.view(lambda: w.one("a.button[href='#/']").click())  # Clear
    w.wait(lambda: len(w.cards()) == 50)
    w.view(lambda: w.fill("Tags (all of them)", "db").send_keys(Keys.ENTER))
    w.wait(lambda: len(w.cards()) == STACKS // 2 and "tag=db" in w.browser.current_url)
    w.control("Tags (all of them)").clear()
    oldest = client.get("/blueprints?name=stack-00", user="alice").json["items"][0]["id"]
    assert client.patch(f"/blueprints/{oldest}", json={"inactive": True}, user="alice").status == 200
    w.view(lambda: Select(w.control("State")).select_by_visible_text("Inactive only"))
    w.wait(lambda: [c.find_element(By.CSS_SELECTOR, "h3 a").text for c in w.cards()] == ["stack-00"])
    assert "inactive=true" in w.browser.current_url and "inactive" in w.cards()[0].text
    w.view(lambda: Select(w.control("State")).select_by_visible_text("Active and inactive"))
    w.view(lambda: w.fill("Type", "kubernetes").send_keys(Keys.ENTER))
    w.wait(lambda: "No blueprint matches." in w.one("main").text and not w.cards())
    w.view(lambda: w.fill("Type", "docker-compose").send_keys(Keys.ENTER))
    w.wait(lambda: len(w.cards()) == 50 and XSS_NAME not in w.one("main").text)  # it has no type
    w.control("Type").clear()
    assert client.patch(f"/blueprints/{oldest}", json={"inactive": False}, user="alice").status == 200
    w.control("Tags (all of them)").clear()
    w.view(lambda: Select(w.control("Profile to fit")).select_by_visible_text("roomy"))
    w.wait(lambda: "profile=" in w.browser.current_url and len(w.cards()) == 50)
    w.wait(lambda: all(c.find_elements(By.CSS_SELECTOR, ".badge") for c in w.cards()))
    with_defaults = "with the profile's defaults of 256 MiB for 3 containers and 0.25 CPU for 3 containers"
    assert w.card(TEMPLATE["name"]).find_element(By.CSS_SELECTOR, ".fit").text == f"fits {with_defaults}"
    w.check_page("catalog-defaults")
    w.view(lambda: Select(w.control("Profile to fit")).select_by_visible_text("tiny"))
    w.wait(lambda: "profile=" in w.browser.current_url and len(w.cards()) == 50)
    w.wait(lambda: all(c.find_elements(By.CSS_SELECTOR, ".badge") for c in w.cards()))
    assert w.card(TEMPLATE["name"]).find_element(By.CSS_SELECTOR, ".badge").text == "does not fit"  # 5 containers
    assert w.card(XSS_NAME).find_element(By.CSS_SELECTOR, ".badge").text == "not measured"
    assert w.card(f"stack-{STACKS - 1:02d}").find_element(By.CSS_SELECTOR, ".badge").text == "fits"
    w.view(lambda: w.control("Only those that fit the profile").click())
    w.wait(lambda: "fitsOnly=true" in w.browser.current_url and TEMPLATE["name"] not in w.one("main").text)
    w.wait(
        lambda: (
            len(w.cards()) == 50 and all(c.find_element(By.CSS_SELECTOR, ".badge").text == "fits" for c in w.cards())
        )
    )
    w.check_page("catalog-fits")

    # The blueprint that tries to inject markup shows it as text, definition included
    w.view(lambda: w.go("#/"))
    w.view(lambda: w.card(XSS_NAME).find_element(By.CSS_SELECTOR, "h3 a").click())
    w.wait(lambda: w.heading() == XSS_NAME)
    assert [li.text for li in w.all("ol.code li")] == XSS_YML.rstrip("\n").replace("  ", " ").split("\n")
    assert XSS_DESCRIPTION in w.one("main").text
    w.check_page("blueprint-markup")

    # A star, then the starred filter
    w.view(lambda: w.go("#/"))
    w.wait(lambda: len(w.cards()) == 50)
    star = w.card(TEMPLATE["name"]).find_element(By.CSS_SELECTOR, "button.star")
    star.click()
    w.wait(lambda: star.get_attribute("aria-pressed") == "true" and star.text == "★ 1")
    w.view(lambda: w.control("Starred by me").click())
    w.wait(lambda: [c.find_element(By.CSS_SELECTOR, "h3 a").text for c in w.cards()] == [TEMPLATE["name"]])

    # The blueprint: definition, requirements, fit per profile, history with a diff, download, restore
    assert client.patch(f"/blueprints/{template['id']}", json={"version": "1.5"}, user="alice").status == 200
    w.browser.execute_script("performance.clearResourceTimings()")  # the catalog's fits fill its buffer
    w.view(lambda: w.card(TEMPLATE["name"]).find_element(By.CSS_SELECTOR, "h3 a").click())
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

    # A blueprint that says where it answers shows its routes
    routed = (
        corpus.text("compose/gitea-postgres") + "x-routes:\n  - {service: gitea, port: 3000, host: git.example.com}\n"
    )
    body = {"name": "gitea", "blueprintType": "compose", "yml": routed + "  - {service: db, port: 5432, tls: false}\n"}
    made = client.post("/blueprints", json=body, user="alice").json
    here = w.browser.current_url
    w.view(lambda: w.go(f"#/blueprints/{made['id']}"))
    w.wait(lambda: w.heading() == "gitea")
    shown = [li.text for li in w.all("section[aria-label=Routes] li")]
    assert shown == ["https://git.example.com → gitea:3000", "http://(any host) → db:5432"]
    w.check_page("blueprint-routes")
    assert client.delete(f"/blueprints/{made['id']}", user="alice").status == 204
    w.view(lambda: w.browser.get(here))

    # Parameters: a form from the schema, a render with its requirements and fit, the most that fits
    w.view(lambda: w.one("a.button[href$='/parameters']").click())
    w.wait(lambda: w.heading() == f"Render {TEMPLATE['name']}")
    w.wait(lambda: "replicas: 2" in w.one("ol[aria-label='Rendered definition']").text)  # at once, at its defaults
    replicas, secret = w.control("WEB_REPLICAS"), w.control("DB_PASSWORD")
    assert (replicas.get_attribute("type"), replicas.get_attribute("min"), replicas.get_attribute("max")) == (
        "number",
        "1",
        "100",
    )
    assert (
        secret.get_attribute("type") == "password"
        and secret.get_attribute("placeholder") == "generated when left empty"
    )
    memory = Select(w.control("WEB_MEMORY"))
    assert [o.text for o in memory.options] == [
        "256M",
        "512M",
        "1G",
        "2G",
    ] and memory.first_selected_option.text == "512M"
    w.fill("WEB_REPLICAS", "3")
    Select(w.control("Profile to fit")).select_by_visible_text("roomy")
    w.button("Render").click()
    w.wait(lambda: len(w.all("ol[aria-label='Rendered definition'] li")) > 10)
    rendered = "\n".join(li.text for li in w.all("ol[aria-label='Rendered definition'] li"))
    assert "replicas: 3" in rendered and "${WEB_REPLICAS}" not in rendered
    assert rendered.count("deploy: {resources: {limits: {memory: 256m, cpus: 0.25}}}") == 3  # roomy's defaults
    password = re.search(r"POSTGRES_PASSWORD=([A-Za-z0-9]{24})", rendered).group(1)
    kept = w.browser.execute_script(
        "return JSON.stringify(sessionStorage) + JSON.stringify(localStorage) + location.href"
    )
    assert password not in kept
    assert "6 containers" in w.one("main").text and "fits" in w.one("main").text
    assert not w.browser.execute_script(WIDER), "a fit table scrolls sideways"
    w.check_page("parameters")
    Select(w.control("Profile to fit")).select_by_visible_text("tiny")
    w.button("Most WEB_REPLICAS that fits").click()
    most = client.post(
        f"/blueprints/{template['id']}/render",
        json={"profile": profiles["tiny"]["id"], "maximize": "WEB_REPLICAS"},
        user="alice",
    )
    expected = most.json["maximized"]["WEB_REPLICAS"]
    w.wait(lambda: f"At most WEB_REPLICAS = {expected} fits this profile." in w.one("main").text)
    assert w.control("WEB_REPLICAS").get_attribute("value") == str(expected)
    shown = "\n".join(li.text for li in w.all("ol[aria-label='Rendered definition'] li"))
    assert f"replicas: {expected}" in shown  # the render shown is the one at the most that fits
    # what is shown is what the buttons send: a value typed renders again, fitted to the profile chosen
    w.fill("WEB_REPLICAS", "6")
    w.wait(lambda: "replicas: 6" in w.one("ol[aria-label='Rendered definition']").text)
    assert w.one("div[aria-label=Fit] .badge").text == "does not fit" and "At most" not in w.one("main").text
    w.fill("Instance name", "too-big")
    w.button("Deploy").click()  # the refusal is said under the button pressed, naming what is short
    w.wait(lambda: w.all("form[aria-label=Deploy] ul.problems"))
    assert "containers: requires 9 containers" in w.one("form[aria-label=Deploy] ul.problems").text
    w.console(409)
    Select(w.control("Profile to fit")).select_by_visible_text("roomy")
    w.wait(lambda: w.one("div[aria-label=Fit] h3").text.startswith("A new instance in roomy:"))
    assert "8 GiB" in w.one("table.fit tbody").text  # roomy's caps, not tiny's
    w.fill("WEB_REPLICAS", "1000")  # over its maximum: the service says so, and the old result goes
    w.wait(lambda: "values.WEB_REPLICAS" in w.one("main").text and not w.all("ol[aria-label='Rendered definition']"))
    w.console(422)

    # The same render for a Kubernetes cluster: the stream, its claim's size, and what does not carry over
    Select(w.control("Profile to fit")).select_by_visible_text("roomy")
    w.fill("WEB_REPLICAS", "2")
    Select(w.control("Render for")).select_by_visible_text("Kubernetes")
    w.fill("Claim size", "2Gi")
    w.button("Render").click()
    w.wait(lambda: w.all("ul[aria-label='Notes'] li"))
    stream = "\n".join(li.text for li in w.all("ol[aria-label='Rendered definition'] li"))
    assert "kind: Deployment" in stream and "storage: 2Gi" in stream and "name: DB_PASSWORD" not in stream
    noted = w.one("ul[aria-label='Notes']").text
    assert "name: wait-for-db" in stream and "name: wait-for-cache" in stream  # depends_on: start order
    assert "services.web.depends_on" not in noted and "services.web.ports.0 approximated" in noted
    w.check_page("render-kubernetes")
    Select(w.control("Render for")).select_by_visible_text("Docker Compose")

    # Deploy an instance from the render form into roomy's room, then upgrade it, the diff shown first
    w.fill("WEB_REPLICAS", "3")
    w.fill("Instance name", "acme-shop")
    w.button("Deploy").click()
    w.wait(lambda: "acme-shop admitted at revision" in w.one("form[aria-label=Deploy]").text)
    [made] = client.get("/instances?name=acme-shop", user="alice").json["items"]
    assert made["values"]["WEB_REPLICAS"] == 3 and made["profile"] == profiles["roomy"]["id"]
    deployed = client.get(f"/instances/{made['id']}/yml", user="alice").body.decode()
    password = re.search(r"POSTGRES_PASSWORD=(\w+)", deployed)
    choices = lambda: [o.text for o in Select(w.control("Instance")).options]  # noqa: E731
    w.wait(lambda: f"acme-shop (revision {made['rev']})" in choices())  # offered at once, no reload
    # the upgrade starts from the instance's kept values, not the form's defaults
    w.view(lambda: w.browser.refresh())
    assert w.control("WEB_REPLICAS").get_attribute("value") == "2"
    Select(w.control("Instance")).select_by_visible_text(f"acme-shop (revision {made['rev']})")
    w.wait(lambda: "replicas: 3" in w.one("ol[aria-label='Rendered definition']").text)
    assert w.control("WEB_REPLICAS").get_attribute("value") == "3"
    assert w.control("DB_PASSWORD").get_attribute("placeholder") == "kept when left empty"
    Select(w.control("WEB_MEMORY")).select_by_visible_text("1G")
    w.button("Show the changes").click()
    w.wait(lambda: w.all("pre[aria-label='Definition diff']"))
    changed = [line for line in w.one("pre[aria-label='Definition diff']").text.splitlines() if line[:1] in "+-"]
    assert [line.split()[-1] for line in changed if "memory:" in line] == ["512M", "1G"]
    assert not [line for line in changed if "replicas" in line or "PASSWORD" in line]  # only what was changed
    assert client.get(f"/instances/{made['id']}", user="alice").json["values"]["WEB_MEMORY"] == "512M"  # not yet
    w.wait(lambda: "memory: 1G" in w.one("ol[aria-label='Rendered definition']").text)  # the render follows
    w.check_page("deploy-upgrade")
    w.button("Upgrade").click()
    w.wait(lambda: "acme-shop upgraded to revision" in w.one("form[aria-label='Upgrade an instance']").text)
    Select(w.control("Instance")).select_by_index(0)  # chosen again: its values as upgraded, not as first read
    Select(w.control("Instance")).select_by_visible_text(f"acme-shop (revision {made['rev']})")
    w.wait(lambda: Select(w.control("WEB_MEMORY")).first_selected_option.text == "1G")
    kept = client.get(f"/instances/{made['id']}", user="alice").json["values"]
    assert kept["WEB_REPLICAS"] == 3 and kept["WEB_MEMORY"] == "1G"
    upgraded = client.get(f"/instances/{made['id']}/yml", user="alice").body.decode()
    assert compose_oracle.config(upgraded)[0] and f"POSTGRES_PASSWORD={password.group(1)}" in upgraded
    w.console()
    w.view(lambda: w.go(f"#/blueprints/{template['id']}"))
    w.wait(lambda: w.all("section[aria-label=Instances] table"))
    current = client.get(f"/blueprints/{template['id']}", user="alice").json["rev"]
    assert f"1 instance, 0 behind revision {current}." in w.one("section[aria-label=Instances]").text
    assert "acme-shop" in w.one("section[aria-label=Instances] table").text
    # the fit says what the profile's instances use of each cap, so that its headroom reads
    rows = [row.text for row in w.all("section[aria-label='Fit to your profiles'] table.fit tbody tr")]
    assert "memory 1.75 GiB 3.75 GiB of 8 GiB 2.5 GiB fits" in rows, rows  # roomy's

    # The editor: problems as one types, with their line marked; then a create
    w.view(lambda: w.one("#nav-new").click())
    w.wait(lambda: w.heading() == "New blueprint")
    w.fill("Name", "made-in-the-browser")
    assert Select(w.control("Type")).first_selected_option.text == "Compose"  # a choice, Compose first
    Select(w.control("Type")).select_by_visible_text("Another type (not checked)")
    w.fill("Definition (YAML)", "services:\n  web:\n    imagez: nginx\n")
    w.wait(lambda: w.one("#checks").text.startswith("Not checked"))
    assert not w.all("#checks .ok")  # what was not checked is never shown green
    Select(w.control("Type")).select_by_visible_text("Compose")
    w.fill("Definition (YAML)", "services:\n  web:\n    imagez: nginx\n")
    w.wait(lambda: "imagez" in w.one("#checks").text)

    def marked():
        return [i + 1 for i, li in enumerate(w.all(".gutter li")) if li.get_attribute("class") == "bad"]

    w.wait(lambda: marked() == [2])  # services.web (the gutter follows the problems' text, a frame later)
    w.console(422)
    w.check_page("editor-problems")
    w.fill("Definition (YAML)", MADE)
    w.wait(lambda: w.one("#checks").text.startswith("No problems. 2 containers, at least 256 MiB, CPU undeclared"))
    assert not w.all(".gutter li.bad")
    w.view(lambda: w.button("Create").click())
    w.wait(lambda: w.heading() == "made-in-the-browser")
    made = w.browser.current_url.rsplit("/", 1)[1]
    assert client.get(f"/blueprints/{made}", user="alice").json["yml"] == MADE
    measured = w.one("section[aria-label=Requirements]").text
    assert "Unresolved" in measured and "CACHE_CPUS" in measured and "web: cpu" in measured

    # Someone else saves first: the 412 says who, shows their change, and lets one save over it
    w.view(lambda: w.one(f"a.button[href='#/blueprints/{made}/edit']").click())
    w.wait(lambda: w.heading() == "Edit made-in-the-browser" and w.one("#checks").text.startswith("No problems"))
    assert client.patch(f"/blueprints/{made}", json={"description": "changed meanwhile"}, user="admin").status == 200
    w.fill("Version", "2")
    w.button("Save").click()
    w.wait(lambda: "admin changed this blueprint" in w.one("main").text)
    assert "revision 2" in w.one("main").text and "changed meanwhile" in w.one("main").text
    w.console(412)
    w.check_page("editor-conflict")
    w.view(lambda: w.button("Save mine over theirs").click())
    w.wait(lambda: w.heading() == "made-in-the-browser" and "version 2" in w.one("main p.meta").text)
    assert client.get(f"/blueprints/{made}", user="alice").json["rev"] == 3

    # Profiles: create (a bad cap is named), edit, make default, what fits
    w.view(lambda: w.go("#/profiles"))
    w.wait(lambda: w.heading() == "Profiles" and len(w.all("ul[aria-label=Profiles] > li")) == 3)
    cards = w.all("ul[aria-label=Profiles] > li")
    roomy = next(c for c in cards if c.find_element(By.CSS_SELECTOR, "h3").text == "roomy")
    bars = roomy.find_elements(By.CSS_SELECTOR, "ul.usage li")
    assert [b.text for b in bars][2] == "containers: 6 containers of 10 containers"
    assert "1 instance" in roomy.text
    spent = client.get(f"/profiles/{profiles['roomy']['id']}", user="alice").json["usage"]["monthly"]
    assert spent > 0 and f"costs {spent:.2f} EUR a month" in roomy.text
    w.fill("Name", "browser-profile")
    w.fill("Memory cap", "lots")
    w.button("Create").click()
    w.wait(lambda: "memoryCap" in w.one("main").text)
    w.console(422)
    w.fill("Memory cap", "2Gi")
    w.fill("CPU cap", "1.5")
    w.view(lambda: w.button("Create").click())
    w.wait(lambda: "browser-profile" in w.one("ul[aria-label=Profiles]").text)
    assert "2 GiB memory, 1.5 CPUs" in w.one("ul[aria-label=Profiles]").text
    w.one("button[aria-label='Edit browser-profile']").click()
    w.wait(lambda: w.control("Name").get_attribute("value") == "browser-profile")
    w.fill("CPU cap", "3")
    w.fill("Default memory per container", "128Mi")
    w.fill("Most CPU per container", "2")
    w.fill("Shared with (usernames)", "bob")
    assert Select(w.control("Pod security")).first_selected_option.get_attribute("value") == "baseline"
    Select(w.control("Pod security")).select_by_value("restricted")
    w.view(lambda: w.button("Save").click())
    w.wait(
        lambda: (
            "2 GiB memory, 3 CPUs, a container declaring none counts 128 MiB, at most per container 2 CPUs"
            in w.one("ul[aria-label=Profiles]").text
            and "shared with bob" in w.one("ul[aria-label=Profiles]").text
            and "pod security: restricted" in w.one("ul[aria-label=Profiles]").text
        )
    )
    saved = client.get("/profiles?name=browser-profile", user="bob").json["items"][0]
    assert saved["containerDefaults"] == {"memory": "128Mi", "cpu": None} and saved["containerMax"]["cpu"] == "2"
    assert saved["podSecurity"] == "restricted"
    w.view(lambda: w.one("button[aria-label='Make browser-profile the default']").click())
    w.wait(lambda: not w.all("button[aria-label='Make browser-profile the default']"))
    defaults = [p["name"] for p in client.get("/profiles?defaultProfile=true", user="alice").json["items"]]
    assert defaults == ["browser-profile"]
    heading, name = w.one("form h2").rect, w.control("Name").rect
    assert heading["y"] + heading["height"] <= name["y"], "the form's heading is not above its fields"
    w.check_page("profiles")
    w.view(lambda: w.one(f"a[href='#/?profile={profiles['roomy']['id']}&fitsOnly=true']").click())
    w.wait(lambda: len(w.cards()) == 50 and w.control("Only those that fit the profile").is_selected())

    # A token that ends brings the sign-in back over the page, which then goes on
    token = w.browser.execute_script("return JSON.parse(sessionStorage.getItem('catalog.session')).token")
    assert client.delete("/tokens", headers={"Authorization": f"Bearer {token}"}).status == 204

    def expire_and_sign_in_again():
        w.browser.find_element(By.LINK_TEXT, "Profiles").click()
        w.wait(lambda: "session has ended" in w.one("#sign-in-reason").text)
        assert w.browser.current_url.endswith("#/profiles")
        w.sign_in("alice")

    w.view(expire_and_sign_in_again)
    w.wait(lambda: w.heading() == "Profiles" and len(w.all("ul[aria-label=Profiles] > li")) == 4)
    w.console(401)

    # Sign out revokes the token; an admin gets the users page
    token = w.browser.execute_script("return JSON.parse(sessionStorage.getItem('catalog.session')).token")
    w.one("#sign-out").click()
    w.wait(lambda: w.one("#sign-in-reason").text == "Signed out.")
    assert client.get("/users/me", headers={"Authorization": f"Bearer {token}"}).status == 401
    assert w.browser.execute_script("return sessionStorage.getItem('catalog.session')") is None
    w.console()
    w.sign_in("admin", "not the password")
    w.wait(lambda: w.one("#sign-in-error").text == "Wrong username or password.")
    assert w.one("#sign-in-reason").text == "", "'Signed out.' beside the error"
    w.console(401)
    w.sign_in("admin")
    w.wait(lambda: w.one("#nav-users").is_displayed())
    w.view(lambda: w.one("#nav-users").click())
    w.wait(lambda: w.heading() == "Users" and "alice" in w.one("table[aria-label=Users]").text)
    w.fill("Username", "dora")
    w.fill("Password", "dora's long password")
    Select(w.control("Role")).select_by_value("viewer")
    w.view(lambda: w.button("Create user").click())
    w.wait(lambda: "dora" in w.one("table[aria-label=Users]").text)
    assert client.get("/users/me", user="dora", password="dora's long password").json["role"] == "viewer"
    w.check_page("users")

    # Import: a Compose file and its .env, previewed (nothing stored), then imported
    w.view(lambda: w.one("#nav-import").click())
    w.wait(lambda: w.heading() == "Import")
    Select(w.control("Format")).select_by_value("compose")
    w.wait(lambda: "Name of the blueprint" in w.one("main form").text)
    w.fill("Source", "team-a/db")
    w.fill("Name of the blueprint", "db-imported")
    w.fill("Catalog or Compose file (paste it, or choose its file)", IMPORTED)
    w.fill(".env (optional)", "TAG=16.4\n")
    w.button("Preview").click()
    w.wait(lambda: w.all("table[aria-label='What the import would do']"))
    row = w.one("table[aria-label='What the import would do'] tbody tr")
    assert "created" in row.text and "POSTGRES_PASSWORD: a secret without a default" in row.text
    assert client.get("/blueprints?name=db-imported", user="admin").json["items"] == []
    w.check_page("import-preview")
    w.browser.execute_script("arguments[0].scrollIntoView({block: 'center'})", w.button("Import"))
    w.button("Import").click()
    w.wait(lambda: w.all("table[aria-label='What the import did'] a"))
    [made] = client.get("/blueprints?name=db-imported", user="admin").json["items"]
    assert made["source"] == {"format": "compose", "name": "team-a/db", "key": "db-imported", "rev": 1}
    assert made["parameters"]["properties"]["TAG"]["default"] == "16.4"
    assert made["parameters"]["properties"]["REPLICAS"] == {"type": "integer", "default": 1}
    w.check_page("import-done")

    assert w.one("main form div[aria-live] p.ok").text == "Imported."  # said where the report is

    # A Portainer catalog chosen as a file (Source takes its name), with the folder of its stack files
    Select(w.control("Format")).select_by_value("portainer")
    w.control("Source").clear()
    w.control("File").send_keys(str(corpus.folder() / "portainer" / "portainer-templates-v3.json"))
    catalog = "Catalog or Compose file (paste it, or choose its file)"
    w.wait(lambda: w.control(catalog).get_attribute("value").startswith("{"))
    assert w.control("Source").get_attribute("value") == "portainer-templates-v3.json"
    w.control("Source").clear()  # left empty, the field at fault is marked and the problem in view
    w.button("Preview").click()
    w.wait(lambda: w.control("Source").get_attribute("aria-invalid") == "true")
    assert "source:" in w.one("main form ul.problems").text
    w.console(422)
    w.fill("Source", "portainer/templates")
    folder = w.control("Stack files: the folder of the catalog repository")
    folder.send_keys(str(corpus.folder() / "portainer" / "portainer-templates"))
    w.button("Preview").click()
    w.wait(lambda: w.all("table[aria-label='What the import would do']"))
    counts = w.one("main form div[aria-live] p").text
    assert counts == "Nothing is stored yet: 68 created, 1 skipped.", counts
    w.check_page("import-portainer")

    # A Coolify catalog: a checkout of Coolify's repository chosen as a folder (Source takes its name)
    checkout = w.downloads.parent / "coolify" / "templates" / "compose"
    checkout.mkdir(parents=True)
    for name in ("activepieces.yaml", "azimutt.yaml"):  # Coolify marks azimutt `# ignore: true`
        (checkout / name).write_text((corpus.folder() / "coolify" / name).read_text())
    Select(w.control("Format")).select_by_value("coolify")
    w.wait(lambda: "a checkout of the platform" in w.one("main form").text)
    # one template pasted: the Portainer stack folder chosen above is not taken for a Coolify catalog
    w.fill("Source", "coolify/one")
    w.fill("Catalog or Compose file (paste it, or choose its file)", (checkout / "activepieces.yaml").read_text())
    w.button("Preview").click()
    w.wait(lambda: w.one("main form div[aria-live] p").text == "Nothing is stored yet: 1 created.")
    # pasted, it has no file name: named by its first service, as Coolify names its file, its tags kept
    assert w.one("table[aria-label='What the import would do'] tbody td").text == "activepieces"
    w.button("Import").click()
    w.wait(lambda: w.all("table[aria-label='What the import did'] a"))
    [pasted] = client.get("/blueprints?name=activepieces", user="admin").json["items"]
    assert pasted["source"]["key"] == "activepieces" and pasted["tags"] == [
        "workflow",
        "automation",
        "no-code",
        "open-source",
    ]
    w.control("Source").clear()
    w.control("Catalog or Compose file (paste it, or choose its file)").clear()
    catalog_folder = "The catalog: a folder (a checkout of the platform repository, its templates, or one template)"
    w.control(catalog_folder).send_keys(str(w.downloads.parent / "coolify"))
    w.wait(lambda: w.control("Source").get_attribute("value") == "coolify")
    w.button("Preview").click()
    w.wait(lambda: w.one("main form div[aria-live] p").text == "Nothing is stored yet: 1 created, 1 skipped.")
    assert "ignore: true" in w.one("table[aria-label='What the import would do'] tr.outcome-skipped").text
    w.check_page("import-coolify")

    # The editor declares a definition's variables as parameters, typed from their defaults
    w.view(lambda: w.one("#nav-new").click())
    w.wait(lambda: w.heading() == "New blueprint")
    w.fill("Name", "declared")
    Select(w.control("Type")).select_by_visible_text("Compose")
    w.fill("Definition (YAML)", IMPORTED)
    w.button("Declare the variables").click()
    parameters = "Parameters (a JSON Schema of type object; empty for none)"
    w.wait(lambda: '"REPLICAS"' in w.control(parameters).get_attribute("value"))
    w.wait(lambda: "No problems" in w.one("#checks").text)
    w.check_page("editor-declared")
    w.view(lambda: w.button("Create").click())
    [declared] = client.get("/blueprints?name=declared", user="admin").json["items"]
    assert declared["parameters"]["properties"]["REPLICAS"] == {"type": "integer", "default": 1}
    assert declared["parameters"]["properties"]["POSTGRES_PASSWORD"]["writeOnly"] is True

    # Two blueprints of one name from two sources: each card says where it came from
    body = {"format": "compose", "source": XSS_NAME, "document": IMPORTED, "defaults": {"name": "db-imported"}}
    assert client.post("/imports", json=body, user="admin").json["counts"]["created"] == 1
    w.view(lambda: w.go("#/?q=db-imported"))
    w.wait(lambda: len(w.cards()) == 2)
    sources = sorted(c.find_element(By.CSS_SELECTOR, ".source").text for c in w.cards())
    assert sources == [f"from {XSS_NAME} (compose)", "from team-a/db (compose)"]  # a source's markup as text
    w.check_page("catalog-sources")
