"""What the tests and the benchmarks share: one HTTP client over Flask's test client and a real
socket (http.py), the one gunicorn launcher (processes.py), headless Chromium (browser.py) and
test apps built from the settings' defaults (apps.py). Neither tests/ nor bench/ imports the other."""
