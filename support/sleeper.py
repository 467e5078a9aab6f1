"""A WSGI app whose /slow never answers in time: what a request that runs past gunicorn's
timeout looks like to the worker (tests/service/test_gunicorn.py). Everything else answers at once."""

import time


def app(environ, start_response):
    if environ["PATH_INFO"] == "/slow":
        time.sleep(3600)
    start_response("200 OK", [("Content-Type", "text/plain")])
    return [b"ok"]
