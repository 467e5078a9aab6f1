"""A team's members see the actions the service says they may take on what the team owns, and its
viewers do not: the page shows an action where `can` allows it and keeps no rule of its own. In
headless Chromium, a member then a viewer of `pay` open the team's blueprint and profile.
Screenshots go to test-output/web/1280/."""

import pytest
from selenium.webdriver.common.by import By

from support.browser import chromium
from support.http import FlaskClient

pytestmark = pytest.mark.parametrize("app", ["mongomock"], indirect=True)
COMPOSE = "services:\n  web:\n    image: nginx:1.27\n    mem_limit: 64m\n    cpus: 0.1\n"


def team_owned(client):
    """The team `pay` (bob a member, carol a viewer), its blueprint and its profile, made by bob."""
    assert client.post("/teams", json={"name": "pay"}, user="admin").status == 201
    for username, role in (("bob", "member"), ("carol", "viewer")):
        assert client.put(f"/teams/pay/members/{username}", json={"role": role}, user="admin").status == 200
    body = {"name": "pay-web", "blueprintType": "compose", "yml": COMPOSE, "owner": "team:pay"}
    blueprint = client.post("/blueprints", json=body, user="bob").json
    profile = client.post("/profiles", json={"name": "pay-budget", "owner": "team:pay"}, user="bob").json
    return blueprint, profile


@pytest.mark.slow
@pytest.mark.browser
def test_a_teams_member_sees_edit_on_what_the_team_owns_and_its_viewer_does_not(app, live_port, tmp_path):
    from support.walk import Walk

    blueprint, profile = team_owned(FlaskClient(app))
    browser = chromium(tmp_path, width=1280, height=900)
    try:
        w = Walk(browser, live_port, 1280, tmp_path / "downloads")
        for user, shown in (("bob", True), ("carol", False)):
            w.go(f"#/blueprints/{blueprint['id']}")
            w.sign_in(user)
            w.wait(lambda: w.heading() == "pay-web")
            w.console(401)  # the page asked before the sign-in it then showed
            edit_links = browser.find_elements(By.XPATH, "//main//a[normalize-space()='Edit']")
            assert bool(edit_links) == shown, user
            w.check_page(f"team-blueprint-{user}")
            w.view(lambda: w.go("#/profiles"))
            w.wait(lambda: w.heading() == "Profiles" and "pay-budget" in w.one("main").text)
            assert bool(w.all("button[aria-label='Edit pay-budget']")) == shown, user
            w.check_page(f"team-profiles-{user}")
            w.one("#sign-out").click()
        w.console()
    finally:
        browser.quit()
