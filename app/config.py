"""Settings from the environment, read when an app is created (so tests can pass their own)."""

import os
from datetime import timedelta

MIB = 1024 * 1024


SWITCH = {"on": True, "1": True, "true": True, "yes": True, "off": False, "0": False, "false": False, "no": False}


def request_lease(config):
    """How long after a request started it has surely ended: twice REQUEST_TIMEOUT, past which
    gunicorn kills it. What a request holds while it runs (a ledger entry, a namespace or host
    hold, an idempotency claim) is another's to conclude once this has passed."""
    return timedelta(seconds=2 * config["REQUEST_TIMEOUT"])


def _switch(environ, name, default):
    """A setting that is on (`on`, `1`, `true`, `yes`) or off (`off`, `0`, `false`, `no`), in any
    case; anything else stops start-up."""
    value = environ.get(name, default).strip().lower()
    if value not in SWITCH:
        raise ValueError(f"{name} is `on` or `off` (or 1 or 0), not {value[:20]!r}.")
    return SWITCH[value]


def from_env(environ=os.environ):
    return {
        "MONGO_URI": environ.get("MONGO_URI") or None,
        "MONGO_DB": environ.get("MONGO_DB", "blueprints"),
        "DATA_DIR": environ.get("DATA_DIR", "./var/data"),
        "ADMIN_USERNAME": environ.get("ADMIN_USERNAME") or None,
        "ADMIN_PASSWORD": environ.get("ADMIN_PASSWORD") or None,
        # werkzeug's scrypt (about 100 ms a check here: docs/performance.md)
        "PASSWORD_HASH_METHOD": environ.get("PASSWORD_HASH_METHOD", "scrypt"),
        # Short, so that a request answers 503 within a second or two while the database is away.
        "MONGO_TIMEOUT_MS": int(environ.get("MONGO_TIMEOUT_MS", "1000")),
        "MAX_CONTENT_LENGTH": MIB,
        # Per user, over all workers and hosts, in fixed windows; `limits`' notation.
        "RATE_LIMIT": environ.get("RATE_LIMIT", "6000 per minute"),
        # Hops of reverse proxies whose X-Forwarded-* headers are believed (0: none).
        "TRUSTED_PROXIES": int(environ.get("TRUSTED_PROXIES", "0")),
        "LOG_LEVEL": environ.get("LOG_LEVEL", "info"),
        # gunicorn kills a request running longer; an idempotency claim outlives it (twice as long).
        "REQUEST_TIMEOUT": int(environ.get("REQUEST_TIMEOUT", "30")),
        "TOKEN_SECONDS": int(environ.get("TOKEN_SECONDS", str(24 * 3600))),
        # How long verified Basic credentials are remembered in-process (app/access/auth.py).
        "AUTH_CACHE_SECONDS": int(environ.get("AUTH_CACHE_SECONDS", "300")),
        # How stale this process's copy of a user record may be (role, disabled, revoked tokens) when
        # the change was made by another process; 0 reads it on every request.
        "USER_CACHE_SECONDS": float(environ.get("USER_CACHE_SECONDS", "1")),
        "AUTH_MAX_FAILURES_PER_USER": int(environ.get("AUTH_MAX_FAILURES_PER_USER", "10")),
        "AUTH_MAX_FAILURES_PER_ADDRESS": int(environ.get("AUTH_MAX_FAILURES_PER_ADDRESS", "100")),
        "AUTH_MAX_FAILURES_PER_ACCOUNT": int(environ.get("AUTH_MAX_FAILURES_PER_ACCOUNT", "100")),
        "AUTH_FAILURE_WINDOW": timedelta(seconds=int(environ.get("AUTH_FAILURE_WINDOW_SECONDS", "300"))),
        # Versions of a blueprint kept, the current one included.
        "REVISIONS_KEPT": max(2, int(environ.get("REVISIONS_KEPT", "100"))),
        # Releases of an instance kept (each pins its blueprint's revision against pruning).
        "RELEASES_KEPT": max(1, int(environ.get("RELEASES_KEPT", "20"))),
        # Sources followed from git (app/sources/): the hosts their URLs may name (none: sources off),
        # whether those may be loopback, link-local or private addresses, and the ssh host keys trusted.
        "SOURCE_HOSTS": tuple(one.strip().lower() for one in environ.get("SOURCE_HOSTS", "").split(",") if one.strip()),
        "SOURCE_PRIVATE": _switch(environ, "SOURCE_PRIVATE", "off"),
        "SOURCE_KNOWN_HOSTS": environ.get("SOURCE_KNOWN_HOSTS") or None,
        # How long one git command of a sync may run.
        "SOURCE_FETCH_SECONDS": 120,
        # How long a render's search for the most that fits may go on (well within REQUEST_TIMEOUT).
        "RENDER_SECONDS": float(environ.get("RENDER_SECONDS", "10")),
        # Namespaces the cluster keeps beside default, kube-* and openshift-* (comma-separated, `*` a
        # suffix wildcard): no instance or render takes them.
        "RESERVED_NAMESPACES": tuple(
            one.strip() for one in environ.get("RESERVED_NAMESPACES", "").split(",") if one.strip()
        ),
        # Where the cluster's ingress controller runs: its pods may reach an instance's routed
        # services (a NetworkPolicy), and no instance takes it.
        "INGRESS_NAMESPACE": environ.get("INGRESS_NAMESPACE", "ingress-nginx"),
        # The image of the init container that holds a pod until the services it depends on answer.
        "WAIT_IMAGE": environ.get("WAIT_IMAGE", "busybox:1.36"),
        # `off`: HTTP Basic signs in ADMIN_USERNAME alone (everyone else through tokens).
        "PASSWORDS": _switch(environ, "PASSWORDS", "on"),
        # Single sign-on (app/access/oidc.py): the OpenID provider's issuer URL and this service's client.
        "OIDC_ISSUER": environ.get("OIDC_ISSUER") or None,
        "OIDC_CLIENT_ID": environ.get("OIDC_CLIENT_ID") or None,
        "OIDC_CLIENT_SECRET": environ.get("OIDC_CLIENT_SECRET") or None,
        "OIDC_CLIENT_AUTH": environ.get("OIDC_CLIENT_AUTH", "client_secret_basic"),
        # bpctl's client at the provider (a public one, with the device grant); default OIDC_CLIENT_ID.
        "OIDC_CLI_CLIENT_ID": environ.get("OIDC_CLI_CLIENT_ID") or None,
        "OIDC_AUDIENCE": environ.get("OIDC_AUDIENCE") or None,
        "OIDC_USERNAME_CLAIM": environ.get("OIDC_USERNAME_CLAIM", "preferred_username"),
        "OIDC_GROUPS_CLAIM": environ.get("OIDC_GROUPS_CLAIM", "groups"),
        "OIDC_TEAM_MAP": environ.get("OIDC_TEAM_MAP", ""),
        # the address people reach the service at (with any path prefix): the page's sign-in comes back under it
        "PUBLIC_URL": (environ.get("PUBLIC_URL") or "").rstrip("/") or None,
        # On: members create teams too (off: admins alone).
        "TEAMS_BY_MEMBERS": _switch(environ, "TEAMS_BY_MEMBERS", "off"),
        # The price sheet of costs, per month (app/model/prices.py; read at start-up): none by default.
        "PRICES": environ.get("PRICES", ""),
        # The most documents a list page examines (the contract's bound), and the most a window of
        # one is sized to read at the density already seen (app/storage/pages.py).
        "LIST_MOST_EXAMINED": 10_000,
        "LIST_WINDOW_DOCS": 2_000,
        # Signs list cursors; unset, a random one is kept in the database and shared by all workers.
        "SECRET_KEY": environ.get("SECRET_KEY") or None,
    }


class _Recording(dict):
    """An environment that holds nothing and notes each variable asked of it."""

    def __init__(self):
        super().__init__()
        self.asked = []

    def get(self, name, default=None):
        self.asked.append(name)
        return default


def _variables():
    """Every environment variable the service reads: those `from_env` asks for (each setting reads
    its own, whatever the others hold), then gunicorn.conf.py's. Tests remove them all from the
    environment of the services they start, so that a caller's settings (the README's `make run`
    line, say) never reach a test."""
    recording = _Recording()
    from_env(recording)
    return (*dict.fromkeys(recording.asked), "HOST", "PORT", "WEB_CONCURRENCY", "PROMETHEUS_MULTIPROC_DIR")


VARIABLES = _variables()
