"""Settings come from the environment, and only the service's: a caller's exported settings (the
README's own `make run` line among them) never change what a test sees."""

import pytest

from app import config
from support.apps import USERS, make_app
from support.http import FlaskClient
from support.processes import environment

HOSTILE = {
    "MONGO_URI": "mongodb://127.0.0.1:1/",
    "MONGO_DB": "someone_elses",
    "DATA_DIR": "/nonexistent/data",
    "ADMIN_USERNAME": "admin",
    "ADMIN_PASSWORD": "change-me-now",
    "PASSWORD_HASH_METHOD": "scrypt",
    "PASSWORDS": "off",
    "PRICES": "cpu=1,currency=EUR",
    "TEAMS_BY_MEMBERS": "on",
    "OIDC_ISSUER": "http://127.0.0.1:1",
    "OIDC_CLIENT_ID": "someone-elses",
    "OIDC_TEAM_MAP": "admins=ops:maintainer",
    "RATE_LIMIT": "1 per hour",
    "LOG_LEVEL": "critical",
    "USER_CACHE_SECONDS": "0",
    "AUTH_MAX_FAILURES_PER_USER": "0",
    "AUTH_MAX_FAILURES_PER_ADDRESS": "0",
    "TRUSTED_PROXIES": "3",
    "PORT": "1",
    "WEB_CONCURRENCY": "9",
}


@pytest.fixture
def hostile_environment(monkeypatch):
    for name, value in HOSTILE.items():
        monkeypatch.setenv(name, value)


def test_the_variables_are_every_one_the_service_reads():
    """`VARIABLES` is what `from_env` reads, whatever the environment holds, and gunicorn's."""
    read = set()

    class Recording(dict):
        def get(self, name, default=None):
            read.add(name)
            return super().get(name, default)

        def __getitem__(self, name):
            read.add(name)
            return super().__getitem__(name)

    config.from_env(Recording(HOSTILE))
    assert read == set(config.VARIABLES) - set(config.GUNICORN_VARIABLES)
    assert set(HOSTILE) <= set(config.VARIABLES) and len(config.VARIABLES) == len(set(config.VARIABLES))


def test_test_apps_ignore_the_callers_settings(hostile_environment):
    api = FlaskClient(make_app("mongomock"))
    assert [api.get("/users/me", user="alice").status for _ in range(3)] == [200] * 3  # no "1 per hour"
    everyone = api.get("/users?limit=200", user="admin").json["items"]
    assert sorted(user["username"] for user in everyone) == sorted(USERS)


def test_services_started_by_tests_get_none_of_the_callers_settings(hostile_environment):
    assert not set(HOSTILE) & set(environment())
    env = environment(MONGO_DB="mine", WEB_CONCURRENCY=2)
    assert (env["MONGO_DB"], env["WEB_CONCURRENCY"], env["PATH"]) == ("mine", "2", environment()["PATH"])
