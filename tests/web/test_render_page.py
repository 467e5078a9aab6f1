"""The render form (#/blueprints/ID/parameters) in headless Chromium: a control per parameter, a
render with its requirements and fit, the most that fits, refusals under the button pressed, the
render for a cluster, then a deploy and an upgrade that starts from the instance's kept values."""

import re

from selenium.webdriver.support.ui import Select

from support import compose_oracle
from support.pages import MARKS, TEMPLATE
from support.walk import WIDER

pytestmark = MARKS


def test_a_template_renders_deploys_and_upgrades_from_its_form(person, seeded):
    """alice renders the template, fitted to her profiles, deploys it into roomy, then upgrades it."""
    w, (client, template, profiles, *_) = person, seeded
    w.go(f"#/blueprints/{template['id']}/parameters")
    w.sign_in("alice")
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
    rendered = w.rendered("replicas: 3", "memory: 256m, cpus: 0.25")
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
    shown = w.rendered(f"replicas: {expected}")
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
    stream = w.rendered("kind: Deployment", "storage: 2Gi")
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
    # a value changed after the changes were shown: they are shown again before anything upgrades
    w.fill("WEB_REPLICAS", "4")
    w.button("Upgrade").click()
    w.wait(lambda: "show them again" in w.one("form[aria-label='Upgrade an instance']").text)
    assert not w.button("Upgrade").is_displayed()
    assert client.get(f"/instances/{made['id']}", user="alice").json["values"]["WEB_MEMORY"] == "512M"
    w.fill("WEB_REPLICAS", "3")
    w.button("Show the changes").click()
    w.wait(lambda: w.button("Upgrade").is_displayed())
    # a revision published meanwhile: the upgrade makes the one whose changes were shown
    path = f"/blueprints/{template['id']}"
    changed = {"description": "Published again while alice upgrades."}
    etag = client.get(path, user="admin").headers["etag"]
    assert client.patch(path, json=changed, user="admin", headers={"If-Match": etag}).status == 200
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
    assert current == made["rev"] + 1  # published while it was upgraded, which kept the revision it showed
    assert f"1 instance, 1 behind revision {current}." in w.one("section[aria-label=Instances]").text
    assert "acme-shop" in w.one("section[aria-label=Instances] table").text
    # the fit says what the profile's instances use of each cap, so that its headroom reads
    rows = [row.text for row in w.all("section[aria-label='Fit to your profiles'] table.fit tbody tr")]
    assert "memory 1.75 GiB 3.75 GiB of 8 GiB 2.5 GiB fits" in rows, rows  # roomy's


DOMAINED = {
    "name": "wiki",
    "blueprintType": "compose",
    "yml": "services:\n  wiki:\n    image: requarks/wiki:2\n    environment:\n      URL: ${WIKI_URL}\n"
    "x-routes:\n  - {service: wiki, port: 3000, host: '${WIKI_HOST}'}\n",
    "parameters": {
        "type": "object",
        "properties": {
            "WIKI_HOST": {"type": "string", "format": "hostname", "x-role": "domain", "examples": ["wiki.example.com"]},
            "WIKI_URL": {
                "type": "string",
                "format": "uri",
                "x-role": "domain",
                "examples": ["https://wiki.example.com"],
            },
        },
    },
}


def test_a_domain_left_empty_is_the_profiles_and_the_address_is_shown_before_deploying(person, seeded):
    """alice leaves the wiki's domains empty: her team's profile gives them, and the render says where it answers."""
    w, (client, *_) = person, seeded
    made = client.post("/blueprints", json=DOMAINED, user="alice").json
    conventions = {
        "name": "apps",
        "memoryCap": "4Gi",
        "containerDefaults": {"memory": "256Mi"},
        "cluster": {"domain": "apps.example.com"},
    }
    assert client.post("/profiles", json=conventions, user="alice").status == 201
    w.go(f"#/blueprints/{made['id']}/parameters")
    w.sign_in("alice")
    w.wait(lambda: w.heading() == "Render wiki")
    host = w.control("WIKI_HOST")
    assert (
        host.get_attribute("value") == ""
        and host.get_attribute("placeholder") == "the profile's domain when left empty"
    )
    Select(w.control("Profile to fit")).select_by_visible_text("apps")
    w.wait(lambda: "URL: https://wiki-wiki.apps.example.com" in w.one("ol[aria-label='Rendered definition']").text)
    assert "https://wiki.apps.example.com → wiki:3000" in w.one("ul.routes").text
    w.console(422)  # at first, her default profile: it has no domain, so the service asked for one
    w.check_page("render-domains")
    w.fill("WIKI_HOST", "docs.apps.example.com")  # a domain typed is the one used
    w.wait(lambda: "https://docs.apps.example.com → wiki:3000" in w.one("ul.routes").text)
    w.fill("WIKI_HOST", "")
    w.fill("Instance name", "team-wiki")
    w.button("Deploy").click()
    w.wait(lambda: "team-wiki admitted at revision" in w.one("form[aria-label=Deploy]").text)
    w.view(lambda: w.go("#/instances"))
    w.wait(lambda: w.all("li.card[aria-label=team-wiki] ul.routes"))
    assert "https://team-wiki.apps.example.com → wiki:3000" in w.one("li.card[aria-label=team-wiki] ul.routes").text
    w.console()
