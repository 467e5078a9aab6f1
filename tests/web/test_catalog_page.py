"""The catalog (#/) in headless Chromium: sign-in, the list newest first with More, search and
filters kept in the URL, fit badges with a profile's defaults, a blueprint whose name tries to
inject markup, stars, and where each blueprint came from."""

from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import Select

from support.pages import IMPORTED, MARKS, STACKS, TEMPLATE, XSS_DESCRIPTION, XSS_NAME, XSS_YML

pytestmark = MARKS


def test_the_catalog_lists_searches_filters_fits_and_stars(person, seeded):
    """The catalog as alice sees it, each filter put in the URL, a bookmark showing the same view."""
    w, (client, *_) = person, seeded
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


def test_two_blueprints_of_one_name_say_where_each_came_from(person, seeded):
    """Each card names its source, a source's markup shown as text."""
    w, (client, *_) = person, seeded
    for source in ("team-a/db", XSS_NAME):
        body = {"format": "compose", "source": source, "document": IMPORTED, "defaults": {"name": "db-imported"}}
        assert client.post("/imports", json=body, user="admin").json["counts"]["created"] == 1
    w.go("#/?q=db-imported")
    w.sign_in("admin")
    w.wait(lambda: len(w.cards()) == 2)
    sources = sorted(c.find_element(By.CSS_SELECTOR, ".source").text for c in w.cards())
    assert sources == [f"from {XSS_NAME} (compose)", "from team-a/db (compose)"]  # a source's markup as text
    w.check_page("catalog-sources")
