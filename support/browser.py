"""Headless Chromium for the page tests (Debian's chromium and chromium-driver): a window of a
given width, the console kept, downloads into a given folder, full-page screenshots."""

import base64
import os
import shutil
from pathlib import Path

import pytest
from selenium import webdriver
from selenium.webdriver.chrome.service import Service

OUTPUT = Path(__file__).resolve().parent.parent / "test-output"
PACKAGES = "Debian's chromium and chromium-driver (make test installs them when run as root)"
FLAGS = (
    "--headless=new",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-quic",
)


def chromium(folder, width=1280, height=2400, extra=()):
    """A browser whose viewport is exactly `width` CSS pixels wide (a phone's, at 390), as a
    phone shows a page (mobile: no scroll bars, the viewport meta tag honoured); `extra` flags
    (a self-signed certificate accepted)."""
    binary, driver = shutil.which("chromium"), shutil.which("chromedriver")
    if not (binary and driver):
        # CI runs as root, installs them, and sets REQUIRE_BROWSER so that a missing browser fails
        assert not os.environ.get("REQUIRE_BROWSER"), f"this test needs {PACKAGES}"
        pytest.skip(f"this test needs {PACKAGES}")
    options = webdriver.ChromeOptions()
    options.binary_location = binary
    for flag in (*FLAGS, *extra, f"--user-data-dir={folder / 'profile'}", f"--window-size={max(width, 800)},{height}"):
        options.add_argument(flag)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    options.add_experimental_option("prefs", {"download.default_directory": str(folder / "downloads")})
    browser = webdriver.Chrome(service=Service(executable_path=driver), options=options)
    metrics = {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": width < 800}
    browser.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", metrics)
    browser.execute_cdp_cmd(
        "Browser.setDownloadBehavior", {"behavior": "allow", "downloadPath": str(folder / "downloads")}
    )
    return browser


def screenshot(browser, path):
    """The whole page, not only what the window shows."""
    size = browser.execute_cdp_cmd("Page.getLayoutMetrics", {})["cssContentSize"]
    clip = {"x": 0, "y": 0, "width": size["width"], "height": min(size["height"], 8000), "scale": 1}
    shot = browser.execute_cdp_cmd(
        "Page.captureScreenshot", {"format": "png", "captureBeyondViewport": True, "clip": clip}
    )
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(base64.b64decode(shot["data"]))
