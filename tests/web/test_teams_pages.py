"""The Teams and Instances pages in headless Chromium, as a team's maintainer (alice), member (bob),
viewer (carol) and someone in no team (dave) use them; and a check that the page shows an action
only where the service's `can` allows it, holding no rule of its own.

`pay` owns a profile, a blueprint (at revision 2) and an instance at revision 1, `pay-web`."""

import pytest
from selenium.webdriver.support.ui import Select

from app.instances.storage import Instances
from support.http import PASSWORD, FlaskClient
from support.pages import MARKS

pytestmark = MARKS
WEB = "services:\n  web:\n    image: nginx:1.27\n    mem_limit: 64m\n    cpus: 0.1\n"
ROLES = {"alice": "maintainer", "bob": "member", "carol": "viewer"}


@pytest.fixture
def team(app):
    """The team `pay` and what it owns, as its members made it; dave is in no team."""
    app.config.update(PRICES="cpu=20,memoryGiB=5,currency=EUR")
    api = FlaskClient(app)
    assert (
        api.post("/users", json={"username": "dave", "password": PASSWORD, "role": "member"}, user="admin").status
        == 201
    )
    assert api.post("/teams", json={"name": "pay", "description": "Payments"}, user="admin").status == 201
    for username, role in ROLES.items():
        assert api.put(f"/teams/pay/members/{username}", json={"role": role}, user="admin").status == 200
    owned = {"owner": "team:pay"}
    budget = api.post("/profiles", json={"name": "budget", "memoryCap": "1Gi", "cpuCap": "1", **owned}, user="bob").json
    blueprint = api.post(
        "/blueprints", json={"name": "web", "blueprintType": "compose", "yml": WEB, **owned}, user="bob"
    )
    body = {"name": "pay-web", "blueprint": blueprint.json["id"], "profile": budget["id"], **owned}
    assert api.post("/instances", json=body, user="bob").status == 201
    changed = {"yml": WEB.replace("1.27", "1.28")}
    path = f"/blueprints/{blueprint.json['id']}"
    assert api.patch(path, json=changed, user="bob", headers={"If-Match": '"1"'}).status == 200
    return api


def switch_to(w, user):
    """Sign out (when signed in) and in as `user`, then open the view again."""
    if w.all("#sign-out") and w.one("#nav").is_displayed():
        w.one("#sign-out").click()
    w.sign_in(user)
    w.wait(lambda: w.one("#nav").is_displayed() and w.one("#whoami").get_attribute("textContent").startswith(user))


def test_the_teams_page_as_each_role(person, team):
    w = person
    w.go("#/teams")
    switch_to(w, "alice")
    w.wait(lambda: w.heading() == "Teams" and w.all("ul[aria-label=Teams] > li"))
    card = w.one("ul[aria-label=Teams] > li").text
    assert "Payments · your role: maintainer" in card and "budget" in card and "pay-web" in card
    assert "Not priced" not in card and "EUR a month" in card  # what each profile costs
    assert w.all("select[aria-label='Role of bob in pay']") and w.all("form[aria-label='Add a member to pay']")
    assert not w.all("form[aria-label='Create a team']")  # the operator lets admins alone create teams
    w.check_page("teams-maintainer")
    w.fill("Username", "dave")
    w.view(lambda: w.one("form[aria-label='Add a member to pay'] button").click())
    w.wait(lambda: "dave" in w.one("table[aria-label='Members of pay']").text)
    assert team.get("/teams/pay", user="admin").json["members"][-1] == {
        "username": "dave",
        "role": "member",
        "origin": "manual",
    }
    for user in ("bob", "carol"):  # a member and a viewer read the team; neither manages it
        switch_to(w, user)
        w.go("#/teams")
        w.wait(lambda: w.heading() == "Teams" and w.all("ul[aria-label=Teams] > li"))
        assert f"your role: {ROLES[user]}" in w.one("ul[aria-label=Teams] > li").text
        assert not w.all("select[aria-label='Role of alice in pay']") and not w.all("button[aria-label^=Remove]")
    w.check_page("teams-viewer")
    switch_to(w, "admin")  # an admin, who creates teams, and sees every one
    w.go("#/teams")
    w.wait(lambda: w.heading() == "Teams" and w.all("form[aria-label='Create a team']"))
    w.fill("New team", "ops")
    w.view(lambda: w.one("form[aria-label='Create a team'] button").click())
    w.wait(lambda: len(w.all("ul[aria-label=Teams] > li")) == 2)
    w.console(403)


def test_the_instances_page_as_each_role(person, team):
    w = person
    w.go("#/instances")
    switch_to(w, "bob")
    w.wait(lambda: w.heading() == "Instances" and w.all("ul[aria-label=Instances] > li"))
    card = w.one("li[aria-label=pay-web]").text
    assert "update available" in card and "owner team:pay" in card and "profile budget" in card
    assert "Not delivered" in card and "EUR a month" in card
    assert w.all("button[aria-label='Delete pay-web']")
    w.button("Upgrade to revision 2").click()
    w.wait(lambda: "+    image: nginx:1.28" in w.one("li[aria-label=pay-web] pre.diff").text)
    w.check_page("instances-member")
    # revision 3 published meanwhile: the upgrade makes what the diff showed, revision 2
    [web] = team.get("/blueprints?name=web", user="bob").json["items"]
    later = {"yml": WEB.replace("1.27", "1.29")}
    published = team.patch(f"/blueprints/{web['id']}", json=later, user="bob", headers={"If-Match": '"2"'})
    assert published.status == 200
    w.view(lambda: w.button("Upgrade").click())
    w.wait(lambda: "revision 2" in w.one("li[aria-label=pay-web] p.meta").text)
    assert team.get("/instances?owner=team:pay", user="admin").json["items"][0]["rev"] == 2
    switch_to(w, "alice")  # the maintainer rolls it back from its releases
    w.go("#/instances")
    w.wait(lambda: w.all("li[aria-label=pay-web] details"))
    w.one("li[aria-label=pay-web] details summary").click()
    w.wait(lambda: w.all("button[aria-label='Roll back pay-web to release 1']"))
    w.view(lambda: w.one("button[aria-label='Roll back pay-web to release 1']").click())
    w.wait(lambda: "revision 1" in w.one("li[aria-label=pay-web] p.meta").text)
    # upgraded by another once its diff is shown: shown again before anything is made
    w.button("Upgrade to revision 3").click()
    w.wait(lambda: w.all("li[aria-label=pay-web] pre.diff"))
    [pay_web] = team.get("/instances?owner=team:pay", user="admin").json["items"]
    read = team.get(f"/instances/{pay_web['id']}", user="bob")
    path = f"/instances/{pay_web['id']}/upgrade"
    assert team.post(path, json={"rev": 2}, user="bob", headers={"If-Match": read.headers["etag"]}).status == 200
    w.button("Upgrade").click()
    w.wait(lambda: "show them again" in w.one("li[aria-label=pay-web]").text)
    assert team.get(f"/instances/{pay_web['id']}", user="bob").json["rev"] == 2
    w.console(412)
    switch_to(w, "carol")  # a viewer reads it: no action, not its definition
    w.go("#/instances")
    w.wait(lambda: w.all("li[aria-label=pay-web]"))
    assert not w.all("li[aria-label=pay-web] .actions button")
    assert "Definition as kept" not in w.one("li[aria-label=pay-web]").text
    w.check_page("instances-viewer")
    switch_to(w, "dave")  # in no team: none of it
    w.go("#/instances")
    w.wait(lambda: w.heading() == "Instances" and "No instance you may read" in w.one("main").text)
    w.go("#/teams")
    w.wait(lambda: w.heading() == "Teams" and "You are in no team" in w.one("main").text)
    w.go("#/environments")
    w.wait(lambda: w.heading() == "Environments" and "No environment you may read" in w.one("main").text)
    switch_to(w, "bob")  # a member deletes it, asked once more first
    w.go("#/instances")
    w.wait(lambda: w.all("button[aria-label='Delete pay-web']"))
    w.one("button[aria-label='Delete pay-web']").click()
    w.wait(lambda: "Deleting pay-web frees its usage." in w.one("li[aria-label=pay-web]").text)
    w.check_page("instances-delete")
    w.button("Keep it").click()
    assert "Deleting" not in w.one("li[aria-label=pay-web]").text
    assert team.get("/instances?owner=team:pay", user="admin").json["items"]  # not deleted
    w.one("button[aria-label='Delete pay-web']").click()
    w.view(lambda: w.button("Delete pay-web").click())
    w.wait(lambda: "No instance you may read" in w.one("main").text)
    assert team.get("/instances?owner=team:pay", user="admin").json["items"] == []
    assert "pay-web deleted" in w.one("#status").text
    switch_to(w, "dave")  # what bob was told is not shown to the next person signed in
    assert w.one("#status").text == ""
    w.console()


def test_the_page_shows_what_can_allows_and_no_rule_of_its_own(person, team, monkeypatch):
    """The service's `can` turned around (nothing for the maintainer, everything for the viewer):
    the page follows it, so that it cannot be deciding by a rule of its own."""
    monkeypatch.setattr(
        Instances,
        "can",
        lambda self, doc, user: dict.fromkeys(("change", "delete", "readYml"), user["username"] == "carol"),
    )
    w = person
    w.go("#/instances")
    switch_to(w, "alice")
    w.wait(lambda: w.all("li[aria-label=pay-web]"))
    assert not w.all("li[aria-label=pay-web] .actions button")
    switch_to(w, "carol")
    w.go("#/instances")
    w.wait(lambda: w.all("button[aria-label='Delete pay-web']"))
    assert w.button("Upgrade to revision 2") and "Definition as kept" in w.one("li[aria-label=pay-web]").text


def test_a_member_deploys_for_the_team_and_upgrades_what_the_team_owns_from_the_render_page(person, team):
    [blueprint] = team.get("/blueprints?name=web", user="bob").json["items"]
    w = person
    w.go(f"#/blueprints/{blueprint['id']}/parameters")
    switch_to(w, "bob")
    w.wait(lambda: w.all("form[aria-label=Deploy]"))
    Select(w.control("Whose it is")).select_by_visible_text("the team pay")
    Select(w.control("Profile to fit")).select_by_visible_text("budget")  # the team's, which he spends from
    w.fill("Instance name", "pay-two")
    w.button("Deploy").click()
    w.wait(lambda: "pay-two admitted at revision 2" in w.one("form[aria-label=Deploy]").text)
    [made] = team.get("/instances?name=pay-two", user="alice").json["items"]
    budget = team.get("/profiles?name=budget", user="bob").json["items"][0]
    assert (made["owner"], made["profile"]) == ("team:pay", budget["id"])
    choices = lambda: [o.text for o in Select(w.control("Instance")).options]  # noqa: E731
    w.wait(lambda: "pay-web (revision 1)" in choices() and "pay-two (revision 2)" in choices())  # the team's
    w.check_page("deploy-for-a-team")
    switch_to(w, "carol")  # a viewer of the team: nothing to deploy as it, nothing to upgrade
    w.go(f"#/blueprints/{blueprint['id']}/parameters")
    w.wait(lambda: w.all("form[aria-label=Deploy]"))
    assert "Whose it is" not in w.one("form[aria-label=Deploy]").text
    assert w.one("form[aria-label='Upgrade an instance']").get_attribute("hidden") is not None
