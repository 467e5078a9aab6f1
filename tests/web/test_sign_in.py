"""The web page signs in through the identity provider, in headless Chromium as a person would:
the button, the provider's sign-in and consent forms, and back on the page as the user the
provider said, whose groups gave them a team. The provider is real (support/oidc.py)."""

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

from support import oidc
from support.apps import serving
from support.browser import OUTPUT, chromium, screenshot
from support.http import FlaskClient

pytestmark = [pytest.mark.slow, pytest.mark.browser, pytest.mark.parametrize("app", ["mongomock"], indirect=True)]


def test_a_person_signs_in_through_the_identity_provider(app, tmp_path):
    FlaskClient(app).post("/teams", json={"name": "pay"}, user="admin")
    with serving(app) as port:
        page = f"http://127.0.0.1:{port}/"
        with oidc.provider(tmp_path, redirect_uri=f"{page}sso/callback") as provider:
            app.config.update(
                OIDC_ISSUER=provider.issuer,
                OIDC_CLIENT_ID=oidc.CLIENT_ID,
                OIDC_CLIENT_SECRET=oidc.CLIENT_SECRET,
                OIDC_AUDIENCE=oidc.AUDIENCE,
                OIDC_TEAM_MAP="payments=pay:member",
                PUBLIC_URL=page,
            )
            provider.set_accounts({"dana": {"groups": ["payments"]}})
            browser = chromium(tmp_path, width=1280, height=900)
            wait = WebDriverWait(browser, 20)
            try:
                browser.get(page)
                organization = wait.until(lambda b: _shown(b, "#sign-in-sso a"))
                screenshot(browser, OUTPUT / "web" / "sso" / "sign-in.png")
                organization.click()
                wait.until(lambda b: b.current_url.startswith(provider.issuer) and b.find_elements(By.NAME, "login"))
                browser.find_element(By.NAME, "login").send_keys("dana")
                browser.find_element(By.NAME, "password").send_keys("any password")
                browser.find_element(By.CSS_SELECTOR, "button[type=submit]").click()
                wait.until(lambda b: b.find_elements(By.CSS_SELECTOR, "input[name=prompt][value=consent]"))
                browser.find_element(By.CSS_SELECTOR, "button[type=submit]").click()  # share the profile with us
                wait.until(lambda b: b.current_url.startswith(page) and _shown(b, "#whoami"))
                assert browser.find_element(By.ID, "whoami").text == "dana (member)"
                assert "sso=" not in browser.current_url  # the address keeps nothing of the sign-in
                stored = browser.execute_script("return JSON.parse(sessionStorage.getItem('catalog.session'))")
                assert stored["user"]["username"] == "dana"
                me = FlaskClient(app).get("/teams", headers={"Authorization": f"Bearer {stored['token']}"})
                assert [(team["name"], team["role"]) for team in me.json["items"]] == [("pay", "member")]
                ours = {cookie["name"] for cookie in browser.get_cookies()} & {"sso_state", "sso_handoff"}
                assert ours == set()  # each went with its one use (the provider's own, on 127.0.0.1 too, stay)
                screenshot(browser, OUTPUT / "web" / "sso" / "signed-in.png")
                browser.get(f"{page}?sso=done")  # a hand-over replayed finds nothing to take
                wait.until(lambda b: "sso=" not in b.current_url)
            finally:
                browser.quit()


def _shown(browser, selector):
    found = browser.find_elements(By.CSS_SELECTOR, selector)
    return found[0] if found and found[0].is_displayed() and found[0].text else None
