"""A person on the page in headless Chromium (support/browser.py): the steps they take (fill,
click, choose, wait for a view) and the checks after each step (no console error, every control
labelled and within the window, no `null` shown, a screenshot)."""

import re

import pytest
from selenium.common.exceptions import (
    NoAlertPresentException,
    NoSuchElementException,
    StaleElementReferenceException,
    TimeoutException,
)
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import WebDriverWait

from support.browser import OUTPUT, screenshot
from support.host_network import settle
from support.http import PASSWORD


class Walk:
    """A browser on the page, with the steps a person takes and the checks after each."""

    def __init__(self, browser, port, width, downloads):
        self.browser, self.base, self.width, self.downloads = browser, f"http://127.0.0.1:{port}/", width, downloads
        self.logged = []  # console entries read by `go`, for the checks that read the console

    def log(self):
        """The console's entries since the last call."""
        entries, self.logged = self.logged + self.browser.get_log("browser"), []
        return entries

    def wait(self, condition, timeout=20):
        """Until `condition()` holds; elements a re-render replaced meanwhile are looked up again."""
        passing = (StaleElementReferenceException, NoSuchElementException)
        try:
            return WebDriverWait(self.browser, timeout, ignored_exceptions=passing).until(lambda _: condition())
        except TimeoutException as timed_out:
            raise AssertionError(self.seen()) from timed_out

    def seen(self):
        """What the page showed when a wait ran out: its address, readiness, text and console; its
        screenshot in test-output/web/timed-out.png."""
        url, state, text = self.browser.execute_script(SEEN)
        console = [e["message"] for e in self.log()]
        screenshot(self.browser, OUTPUT / "web" / "timed-out.png")
        return f"the wait ran out on {url} ({state}), showing {text!r}; the console said {console}"

    def all(self, css):
        return self.browser.find_elements(By.CSS_SELECTOR, css)

    def one(self, css):
        return self.browser.find_element(By.CSS_SELECTOR, css)

    def button(self, text):
        return self.browser.find_element(By.XPATH, f"//button[normalize-space()='{text}']")

    def control(self, label):
        """The control a visible label names (every control has one: checked in `check_page`)."""
        found = self.browser.find_element(By.XPATH, f"//main//label[normalize-space()='{label}']")
        return self.browser.find_element(By.ID, found.get_attribute("for"))

    def fill(self, label, text):
        control = self.control(label)
        control.clear()
        control.send_keys(text)
        return control

    def view(self, action):
        """Does `action`, then waits until the view it leads to is on screen (the page numbers
        each rendering in `data-shown`)."""
        main = self.one("main")
        before = main.get_attribute("data-shown")
        action()

        def shown():  # a reload shows the page's first rendering again, in a new `main`
            now = self.one("main")
            return now.get_attribute("data-shown") is not None and (
                now != main or now.get_attribute("data-shown") != before
            )

        self.wait(shown)
        top, sign_out = self.browser.execute_script(AT_TOP)
        assert (top, sign_out) == (0, True), "a view opened scrolled down, the navigation bar out of sight"

    def heading(self):
        return self.one("main h1").text

    def rendered(self, *wanted):
        """The rendered definition's text once it holds each of `wanted`: a render that replaced the
        one read meanwhile (the form renders again as values change) is read again."""

        def text():
            shown = "\n".join(li.text for li in self.all("ol[aria-label='Rendered definition'] li"))
            return shown if shown and all(part in shown for part in wanted) else None

        return self.wait(text)

    def go(self, route):
        """Load `route` once the host's addresses have settled (a Docker Engine a fixture just used
        may still be changing them: support/host_network.py); a load whose files failed because
        they changed all the same (Chromium's net::ERR_NETWORK_CHANGED) is made again, at most
        twice."""
        for _ in range(3):
            settle()
            self.browser.get(self.base + route)
            entries = self.browser.get_log("browser")
            changed = [e for e in entries if "net::ERR_NETWORK_CHANGED" in e["message"]]
            self.logged += [e for e in entries if e not in changed]
            if not changed:
                return
        raise AssertionError(f"the host's network changed during each of three loads of {route}")

    def cards(self):
        return self.all("ul[aria-label=Blueprints] > li.card")

    def card(self, name):
        return next(c for c in self.cards() if c.find_element(By.CSS_SELECTOR, "h3 a").text == name)

    def sign_in(self, user, password=PASSWORD):
        self.wait(lambda: self.one("#sign-in").get_attribute("open") is not None)
        for field, text in (("#sign-in-username", user), ("#sign-in-password", password)):
            self.one(field).clear()
            self.one(field).send_keys(text)
        self.one("#sign-in-form button").click()

    def console(self, *statuses):
        """Fails on a console error, but a refusal with one of `statuses` that the step provoked."""
        allowed = re.compile(rf"status of ({'|'.join(map(str, statuses)) or 'none'})\b")
        errors = [e["message"] for e in self.log() if e["level"] == "SEVERE"]
        assert [m for m in errors if not allowed.search(m)] == []

    def check_page(self, name):
        """Every control labelled and reachable with the keyboard; the navigation marking the
        page's own link; no script injected; no alert; then the screenshot."""
        assert self.browser.execute_script(UNLABELLED) == []
        assert self.browser.execute_script("return document.querySelectorAll('main img, main script').length") == 0
        assert self.browser.execute_script(PLACEHOLDERS) == [], "a value shown as null or undefined"
        with pytest.raises(NoAlertPresentException):
            self.browser.switch_to.alert.text  # noqa: B018 (raises when there is none)
        assert self.browser.execute_script("return document.documentElement.scrollWidth") <= self.width, (
            "wider than the window"
        )
        beyond, cut, bar = self.browser.execute_script(BEYOND)
        assert (beyond, cut) == ([], []), "a control beyond the window, or a line cut off"
        assert bar <= 60, "the bar takes more than one row"
        path, current = self.browser.execute_script(CURRENT)
        under = "#/" if path.startswith("#/blueprints/") else path
        assert current == [under], f"the navigation marks {current} as the page at {path}"
        self.tab_through()
        loaded = self.browser.execute_script("return performance.getEntriesByType('resource').map((e) => e.name)")
        assert all(url.startswith(self.base) for url in loaded), "a load from another host"
        screenshot(self.browser, OUTPUT / "web" / str(self.width) / f"{name}.png")
        self.console()

    def tab_through(self):
        """Tab from the top reaches every visible control of the page, in order, once."""
        count = self.browser.execute_script(TAG_CONTROLS)
        self.browser.execute_script("document.activeElement && document.activeElement.blur(); window.scrollTo(0, 0)")
        keys = ActionChains(self.browser)
        for _ in range(count + 8):
            keys.send_keys(Keys.TAB)
        keys.perform()  # all at once: a round trip per key would be slow
        seen = self.browser.execute_script("return window.__tabbed")
        assert set(range(count)) <= set(seen), f"controls not reached with Tab: {set(range(count)) - set(seen)}"


# Controls any part of which lies beyond the window (inside a box that scrolls sideways too: a
# person must swipe to reach it), and text cut off in the definition and diff views.
BEYOND = """
const width = window.innerWidth;
const selector = 'header a, header button, main a, main button, main input, main select, main textarea';
const controls = [...document.querySelectorAll(selector)]
  .filter((c) => c.getClientRects().length && getComputedStyle(c).visibility !== 'hidden');
const outside = (c) => { const r = c.getBoundingClientRect(); return r.left < -1 || r.right > width + 1; };
const beyond = controls.filter(outside).map((c) => c.outerHTML.slice(0, 80));
const cut = [...document.querySelectorAll('.code li, .diff span')].filter((l) => l.scrollWidth > l.clientWidth + 1)
  .map((l) => l.textContent.slice(0, 40));
return [beyond, cut, document.querySelector('header').getBoundingClientRect().height];
"""
PLACEHOLDERS = """
const texts = document.createTreeWalker(document.getElementById('main'), NodeFilter.SHOW_TEXT);
const found = [];
while (texts.nextNode()) {
  const text = texts.currentNode;  // a definition's own text may say null
  const shown = /\\b(null|undefined|NaN)\\b/.test(text.nodeValue);
  if (shown && !text.parentElement.closest('.code, .diff')) found.push(text.nodeValue);
}
return found;
"""
CURRENT = """
const path = location.hash.split('?')[0];
const marked = [...document.querySelectorAll('#nav a[aria-current=page]')].map((a) => a.getAttribute('href'));
return [path === '' || path === '#' ? '#/' : path, marked];
"""
SEEN = "return [location.href, document.readyState, document.body ? document.body.innerText.slice(0, 400) : null]"
AT_TOP = "return [window.scrollY, document.getElementById('sign-out').getBoundingClientRect().top >= 0]"
WIDER = "return [...document.querySelectorAll('table.fit')].some((t) => t.offsetWidth > t.parentNode.clientWidth)"
UNLABELLED = """
const named = (c) => (c.labels && c.labels.length) || c.getAttribute('aria-label') || c.getAttribute('aria-labelledby')
  || (c.tagName === 'BUTTON' && c.textContent.trim()) || (c.tagName === 'A' && c.textContent.trim());
return [...document.querySelectorAll('input, select, textarea, button, a')]
  .filter((c) => c.offsetParent !== null && !named(c)).map((c) => c.outerHTML.slice(0, 120));
"""
TAG_CONTROLS = """
const visible = [...document.querySelectorAll('a[href], button, input, select, textarea')]
  .filter((c) => c.offsetParent !== null && !c.disabled && c.closest('dialog') === null);
// a group of radios is one stop of the Tab key: its checked radio
const stops = visible.filter((c) => c.type !== 'radio' || c.checked);
stops.forEach((c, i) => { c.dataset.tabbed = String(i); });
window.__tabbed = [];
document.addEventListener('focusin', (event) => {
  if (event.target.dataset && event.target.dataset.tabbed) window.__tabbed.push(Number(event.target.dataset.tabbed));
});
return stops.length;
"""
