"""Sessions and the users page in headless Chromium: a token that ends brings the sign-in back over
the page, which then goes on; signing out revokes the token; an admin creates a user."""

from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select

from support.pages import MARKS

pytestmark = MARKS


def test_a_session_ends_and_signs_in_again_and_an_admin_creates_a_user(person, seeded):
    """alice on the catalog, her token revoked as she opens her profiles, then signed out; the admin on
    the users page."""
    w, (client, *_) = person, seeded
    w.go("")
    w.sign_in("alice")
    # every card's fit read (they load after the cards): none of those requests meets the revoked token
    w.wait(lambda: len(w.cards()) == 50 and all(badge.text for badge in w.all("li.card .fit")))
    token = w.browser.execute_script("return JSON.parse(sessionStorage.getItem('catalog.session')).token")
    assert client.delete("/tokens", headers={"Authorization": f"Bearer {token}"}).status == 204

    def expire_and_sign_in_again():
        w.browser.find_element(By.LINK_TEXT, "Profiles").click()
        w.wait(lambda: "session has ended" in w.one("#sign-in-reason").text)
        assert w.browser.current_url.endswith("#/profiles")
        w.sign_in("alice")

    w.view(expire_and_sign_in_again)
    w.wait(lambda: w.heading() == "Profiles" and len(w.all("ul[aria-label=Profiles] > li")) == 3)
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
