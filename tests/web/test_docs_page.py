"""GET /docs in a real browser: headless Chromium (Debian's chromium and chromium-driver)."""

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

from support.browser import OUTPUT, chromium

pytestmark = [pytest.mark.slow, pytest.mark.browser, pytest.mark.parametrize("app", ["mongomock"], indirect=True)]


@pytest.fixture
def browser(tmp_path):
    browser = chromium(tmp_path)
    yield browser
    browser.quit()


def test_docs_lists_every_operation_of_both_resources(browser, live_port):
    browser.get(f"http://127.0.0.1:{live_port}/docs")
    WebDriverWait(browser, 30).until(lambda b: len(b.find_elements(By.CSS_SELECTOR, ".opblock")) >= 12)
    listed = {
        (
            block.find_element(By.CSS_SELECTOR, ".opblock-summary-method").text,
            block.find_element(By.CSS_SELECTOR, ".opblock-summary-path").get_attribute("data-path"),
        )
        for block in browser.find_elements(By.CSS_SELECTOR, ".opblock")
    }
    for collection in ("/profiles", "/blueprints"):
        assert {("GET", collection), ("POST", collection)} <= listed
        item = collection + "/{id}"
        assert {("GET", item), ("PATCH", item), ("PUT", item), ("DELETE", item)} <= listed
    assert "Profiles and Blueprints" in browser.find_element(By.CSS_SELECTOR, ".info .title").text
    # every script and style came from this server, none from a CDN
    sources = browser.execute_script("return performance.getEntriesByType('resource').map(e => e.name)")
    assert sources and all(src.startswith(f"http://127.0.0.1:{live_port}/") for src in sources)
    OUTPUT.mkdir(exist_ok=True)
    assert browser.save_screenshot(str(OUTPUT / "docs.png"))
