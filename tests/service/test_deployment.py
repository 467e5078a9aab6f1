"""The deployment as operators run it: gunicorn behind Debian's nginx, under a path prefix, with
TLS. The API's links stay under the prefix, the OpenAPI document names it, and in Chromium the
web page signs in and lists, and Swagger UI loads, everything from under the prefix."""

import ssl

import httpx
import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

from support import oidc
from support.browser import OUTPUT, chromium, screenshot
from support.nginx import Nginx
from support.ports import free_port
from support.processes import Gunicorn

pytestmark = [pytest.mark.slow, pytest.mark.browser]
ADMIN = ("admin", "change-me-now")


@pytest.fixture(scope="module")
def proxied(tmp_path_factory):
    """The service as `make run` starts it, trusting one proxy, behind nginx at /bp/ over TLS."""
    folder, provider_port = tmp_path_factory.mktemp("deployment"), free_port()
    service = Gunicorn(
        DATA_DIR=folder / "data",
        ADMIN_USERNAME=ADMIN[0],
        ADMIN_PASSWORD=ADMIN[1],
        TRUSTED_PROXIES=1,
        WEB_CONCURRENCY=2,
        OIDC_ISSUER=f"http://127.0.0.1:{provider_port}",
        OIDC_CLIENT_ID=oidc.CLIENT_ID,
        OIDC_CLIENT_SECRET=oidc.CLIENT_SECRET,
        OIDC_AUDIENCE=oidc.AUDIENCE,
    ).start()
    try:
        with (
            Nginx(folder / "nginx", service.port) as nginx,
            oidc.provider(folder, redirect_uri=f"{nginx.base}/sso/callback", port=provider_port) as provider,
        ):
            trusted = ssl.create_default_context(cafile=str(folder / "nginx" / "cert.pem"))
            nginx.client = httpx.Client(base_url=nginx.base, verify=trusted, auth=ADMIN)
            nginx.provider = provider
            yield nginx
            nginx.client.close()
    finally:
        service.stop()


def test_the_api_keeps_its_links_and_its_document_under_the_prefix(proxied):
    api = proxied.client
    made = api.post("/profiles", json={"name": "behind nginx"})
    assert made.status_code == 201 and made.headers["location"] == f"/bp/profiles/{made.json()['id']}"
    assert api.get(made.headers["location"].removeprefix("/bp")).json()["name"] == "behind nginx"
    for name in ("one", "two"):
        body = {"name": name, "blueprintType": "compose", "yml": "services: {web: {image: nginx}}\n"}
        assert api.post("/blueprints", json=body).status_code == 201
    page = api.get("/blueprints?limit=1")
    assert page.headers["link"].startswith("</bp/blueprints?") and page.headers["link"].endswith('>; rel="next"')
    assert api.get("/openapi.json").json()["servers"] == [{"url": "/bp"}]
    assert api.get("/users/me", auth=None).status_code == 401


def test_the_web_page_signs_in_and_lists_and_swagger_ui_loads_under_the_prefix(proxied, tmp_path):
    for name in ("catalog entry", "another entry"):
        body = {"name": name, "blueprintType": "compose", "yml": "services: {web: {image: nginx}}\n"}
        assert proxied.client.post("/blueprints", json=body).status_code == 201
    browser = chromium(tmp_path, width=1280, extra=("--ignore-certificate-errors",))
    try:
        browser.get(proxied.base + "/")
        wait = WebDriverWait(browser, 30)
        wait.until(lambda b: b.find_element(By.ID, "sign-in").get_attribute("open") is not None)
        browser.find_element(By.ID, "sign-in-username").send_keys(ADMIN[0])
        browser.find_element(By.ID, "sign-in-password").send_keys(ADMIN[1])
        browser.find_element(By.CSS_SELECTOR, "#sign-in-form button").click()
        wait.until(lambda b: len(b.find_elements(By.CSS_SELECTOR, "ul[aria-label=Blueprints] > li.card")) >= 2)
        names = [card.text for card in browser.find_elements(By.CSS_SELECTOR, "li.card h3 a")]
        assert {"catalog entry", "another entry"} <= set(names)
        loaded = browser.execute_script("return performance.getEntriesByType('resource').map((e) => e.name)")
        assert loaded and all(url.startswith(proxied.base + "/") for url in loaded), loaded
        errors = [entry["message"] for entry in browser.get_log("browser") if entry["level"] == "SEVERE"]
        assert errors == []
        screenshot(browser, OUTPUT / "deployment" / "catalog-under-prefix.png")

        browser.get(proxied.base + "/docs")
        wait.until(lambda b: len(b.find_elements(By.CSS_SELECTOR, ".opblock")) >= 12)
        assert browser.find_element(By.CSS_SELECTOR, ".servers select").get_attribute("value") == "/bp"
        loaded = browser.execute_script("return performance.getEntriesByType('resource').map((e) => e.name)")
        assert all(url.startswith(proxied.base + "/") for url in loaded), loaded
        errors = [entry["message"] for entry in browser.get_log("browser") if entry["level"] == "SEVERE"]
        assert errors == []  # no script or style refused by the policy either
        screenshot(browser, OUTPUT / "deployment" / "docs-under-prefix.png")
    finally:
        browser.quit()


def test_the_web_page_signs_in_through_the_identity_provider_under_the_prefix_with_tls(proxied, tmp_path):
    proxied.provider.set_accounts({"erin": {}})
    browser = chromium(tmp_path, width=1280, extra=("--ignore-certificate-errors",))
    try:
        browser.get(proxied.base + "/")
        wait = WebDriverWait(browser, 30)
        wait.until(lambda b: b.find_element(By.CSS_SELECTOR, "#sign-in-sso a").is_displayed())
        browser.find_element(By.CSS_SELECTOR, "#sign-in-sso a").click()
        wait.until(lambda b: b.find_elements(By.NAME, "login"))
        browser.find_element(By.NAME, "login").send_keys("erin")
        browser.find_element(By.NAME, "password").send_keys("any password")
        browser.find_element(By.CSS_SELECTOR, "button[type=submit]").click()
        wait.until(lambda b: b.find_elements(By.CSS_SELECTOR, "input[name=prompt][value=consent]"))
        browser.find_element(By.CSS_SELECTOR, "button[type=submit]").click()
        wait.until(lambda b: b.current_url.startswith(proxied.base + "/") and b.find_element(By.ID, "whoami").text)
        assert browser.find_element(By.ID, "whoami").text == "erin (member)"
        assert browser.current_url.removesuffix("#/") == proxied.base + "/"  # under the prefix, the query gone
        ours = [cookie for cookie in browser.get_cookies() if cookie["name"].startswith("sso_")]
        assert ours == []
        screenshot(browser, OUTPUT / "deployment" / "signed-in-through-the-provider.png")
    finally:
        browser.quit()
