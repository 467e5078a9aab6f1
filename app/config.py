"""Settings from the environment, read when an app is created (so tests can pass their own): one
table, `SETTINGS`, each row a key, the variable it is read from, its default and how its text is
read; `VARIABLES` is what the table reads, and gunicorn.conf.py's. The README's Configuration table
says what each means to an operator."""

import os
from dataclasses import dataclass
from datetime import timedelta

MIB = 1024 * 1024
SWITCH = {"on": True, "1": True, "true": True, "yes": True, "off": False, "0": False, "false": False, "no": False}


def request_lease(config):
    """How long after a request started it has surely ended: twice REQUEST_TIMEOUT, past which
    gunicorn kills it. What a request holds while it runs (a ledger entry, a namespace or host
    hold, an idempotency claim) is another's to conclude once this has passed."""
    return timedelta(seconds=2 * config["REQUEST_TIMEOUT"])


def _switch(text):
    """On (`on`, `1`, `true`, `yes`) or off (`off`, `0`, `false`, `no`), in any case; anything else
    stops start-up."""
    value = text.strip().lower()
    if value not in SWITCH:
        raise ValueError(f"`on` or `off` (or 1 or 0), not {value[:20]!r}.")
    return SWITCH[value]


def _optional(text):
    """The text, None where unset or empty."""
    return text or None


def _listed(text, lower=False):
    """A comma-separated list, each item trimmed, empty ones left out."""
    return tuple((one.strip().lower() if lower else one.strip()) for one in text.split(",") if one.strip())


@dataclass(frozen=True)
class Setting:
    """The app setting `key`, read from the environment variable `variable` (default: `key`) by
    `read` from its text, or from `default` where the variable is unset."""

    key: str
    default: str | None = None
    read: object = str
    variable: str | None = None

    @property
    def read_from(self):
        """The environment variable it is read from."""
        return self.variable or self.key


SETTINGS = (
    Setting("MONGO_URI", read=_optional),
    Setting("MONGO_DB", "blueprints"),
    Setting("DATA_DIR", "./var/data"),
    Setting("ADMIN_USERNAME", read=_optional),
    Setting("ADMIN_PASSWORD", read=_optional),
    Setting("PASSWORD_HASH_METHOD", "scrypt"),  # werkzeug's scrypt: about 100 ms a check (docs/performance.md)
    Setting("MONGO_TIMEOUT_MS", "1000", int),  # short: a request answers 503 within a second or two while it is away
    Setting("RATE_LIMIT", "6000 per minute"),  # per user, over all workers and hosts, fixed windows; `limits`' notation
    Setting("TRUSTED_PROXIES", "0", int),  # hops of reverse proxies whose X-Forwarded-* are believed
    Setting("LOG_LEVEL", "info"),
    Setting("REQUEST_TIMEOUT", "30", int),  # gunicorn kills a request running longer (`request_lease`)
    Setting("TOKEN_SECONDS", str(24 * 3600), int),
    Setting("AUTH_CACHE_SECONDS", "300", int),  # verified Basic credentials remembered in-process
    # how stale this process's copy of a user record may be after another process changed it (0: none)
    Setting("USER_CACHE_SECONDS", "1", float),
    Setting("AUTH_MAX_FAILURES_PER_USER", "10", int),
    Setting("AUTH_MAX_FAILURES_PER_ADDRESS", "100", int),
    Setting("AUTH_MAX_FAILURES_PER_ACCOUNT", "100", int),
    Setting("AUTH_FAILURE_WINDOW", "300", lambda text: timedelta(seconds=int(text)), "AUTH_FAILURE_WINDOW_SECONDS"),
    Setting("REVISIONS_KEPT", "100", lambda text: max(2, int(text))),  # the current one included
    Setting("RELEASES_KEPT", "20", lambda text: max(1, int(text))),  # each pins its revision against pruning
    # sources followed from git: the hosts their URLs may name (none: sources off), whether those may be
    # loopback, link-local or private, and the ssh host keys trusted
    Setting("SOURCE_HOSTS", "", lambda text: _listed(text, lower=True)),
    Setting("SOURCE_PRIVATE", "off", _switch),
    Setting("SOURCE_KNOWN_HOSTS", read=_optional),
    Setting("RENDER_SECONDS", "10", float),  # a render's search for the most that fits (within REQUEST_TIMEOUT)
    Setting("RESERVED_NAMESPACES", "", _listed),  # beside default, kube-* and openshift-*; `*` a suffix wildcard
    Setting("INGRESS_NAMESPACE", "ingress-nginx"),  # its pods reach an instance's routes; no instance takes it
    Setting("WAIT_IMAGE", "busybox:1.36"),  # the init container that holds a pod until what it depends on answers
    Setting("PASSWORDS", "on", _switch),  # off: HTTP Basic signs in ADMIN_USERNAME alone
    # single sign-on (app/access/oidc.py): the provider's issuer, this service's client, bpctl's (public)
    Setting("OIDC_ISSUER", read=_optional),
    Setting("OIDC_CLIENT_ID", read=_optional),
    Setting("OIDC_CLIENT_SECRET", read=_optional),
    Setting("OIDC_CLIENT_AUTH", "client_secret_basic"),
    Setting("OIDC_CLI_CLIENT_ID", read=_optional),
    Setting("OIDC_AUDIENCE", read=_optional),
    Setting("OIDC_USERNAME_CLAIM", "preferred_username"),
    Setting("OIDC_GROUPS_CLAIM", "groups"),
    Setting("OIDC_TEAM_MAP", ""),
    # the address people reach the service at, path prefix included: the page's sign-in comes back under it
    Setting("PUBLIC_URL", read=lambda text: (text or "").rstrip("/") or None),
    Setting("TEAMS_BY_MEMBERS", "off", _switch),  # on: members create teams too
    Setting("PRICES", ""),  # the price sheet, per month (app/model/prices.py): none by default
    Setting("SECRET_KEY", read=_optional),  # signs list cursors; unset, a random one is kept in the database
)
FIXED = {
    "MAX_CONTENT_LENGTH": MIB,
    "SOURCE_FETCH_SECONDS": 120,  # how long one git command of a sync may run
    # the most documents a list page examines (the contract's bound), and the most a window of one
    # is sized to read at the density already seen (app/storage/pages.py)
    "LIST_MOST_EXAMINED": 10_000,
    "LIST_WINDOW_DOCS": 2_000,
}


def from_env(environ=os.environ):
    """Every setting, from `environ`; a value a setting cannot read stops start-up, naming it."""
    values = dict(FIXED)
    for setting in SETTINGS:
        text = environ.get(setting.read_from, setting.default)
        try:
            values[setting.key] = setting.read(text)
        except ValueError as exc:
            raise ValueError(f"{setting.read_from} is {exc}") from None
    return values


# Every environment variable the service reads: the table's, then gunicorn.conf.py's. Tests remove
# them all from the environment of the services they start, so that a caller's settings (the
# README's `make run` line, say) never reach a test.
GUNICORN_VARIABLES = ("HOST", "PORT", "WEB_CONCURRENCY", "PROMETHEUS_MULTIPROC_DIR")
VARIABLES = (*(setting.read_from for setting in SETTINGS), *GUNICORN_VARIABLES)
