"""Settings from the environment, read when an app is created (so tests can pass their own): one
table, `SETTINGS` (and gunicorn's, `SERVER`), each row a key, the variable it is read from, its
default, how its text is read and what it means to an operator; the README's Configuration table
is written from it (`python -m tests.test_readme`). `VARIABLES` is every variable the tables read."""

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


def _hosts(text):
    """Host names (patterns) as `_listed` reads them, in lower case: DNS names are."""
    return _listed(text, lower=True)


def _at_least(least):
    """A whole number read, `least` where it is below."""
    return lambda text: max(least, int(text))


@dataclass(frozen=True)
class Setting:
    """The app setting `key`, read from the environment variable `variable` (default: `key`) by
    `read` from its text, or from `default` where the variable is unset. `meaning` is what it
    means to an operator (None: the row of the setting before it says it), `shown` its default as
    the README's Configuration table writes it (None: written from `default`)."""

    key: str
    default: str | None = None
    read: object = str
    variable: str | None = None
    meaning: str | None = None
    shown: str | None = None

    @property
    def read_from(self):
        """The environment variable it is read from."""
        return self.variable or self.key


SWITCHED = "; switches take ``on``/``off``, ``1``/``0``"
SETTINGS = (
    Setting("MONGO_URI", read=_optional, meaning="the MongoDB deployment; unset: the embedded server"),
    Setting("MONGO_DB", "blueprints", meaning="database name"),
    Setting("DATA_DIR", "./var/data", meaning="the embedded server's files (only without ``MONGO_URI``)"),
    Setting("LOG_LEVEL", "info", meaning="level of the JSON logs (app and gunicorn)"),
    Setting(
        "ADMIN_USERNAME",
        read=_optional,
        meaning="an admin created at start-up when no user has that name (an existing user is never changed)",
    ),
    Setting("ADMIN_PASSWORD", read=_optional),
    Setting(
        "MONGO_TIMEOUT_MS", "1000", int, meaning="server selection and connection timeout (outages answer 503 at once)"
    ),
    Setting(
        "PASSWORD_HASH_METHOD", "scrypt", meaning="werkzeug's hash method for new passwords (scrypt: about 100 ms)"
    ),
    Setting(
        "PASSWORDS", "on", _switch, meaning="``off``: HTTP Basic signs in ``ADMIN_USERNAME`` alone; others use tokens"
    ),
    Setting(
        "OIDC_ISSUER",
        read=_optional,
        meaning="single sign-on: the OpenID provider's issuer URL; the audience its access tokens name (default: "
        "the client id)",
    ),
    Setting("OIDC_AUDIENCE", read=_optional),
    Setting(
        "OIDC_CLIENT_ID",
        read=_optional,
        meaning="this service's client at the provider (the secret where it is confidential)",
    ),
    Setting("OIDC_CLIENT_SECRET", read=_optional),
    Setting("OIDC_CLIENT_AUTH", "client_secret_basic", meaning="how the client authenticates: ``_basic`` or ``_post``"),
    Setting(
        "OIDC_CLI_CLIENT_ID",
        read=_optional,
        meaning="bpctl's client (public, with the device grant: ``bpctl login --sso``)",
        shown="the client id",
    ),
    Setting("OIDC_USERNAME_CLAIM", "preferred_username", meaning="the claim that names a new user"),
    Setting("OIDC_GROUPS_CLAIM", "groups", meaning="the claim that gives a user's groups"),
    Setting(
        "OIDC_TEAM_MAP",
        "",
        meaning="``group=team:role,...``: a group's members get that team role at each sign-in that brings new groups",
    ),
    Setting(
        "PUBLIC_URL",
        read=lambda text: (text or "").rstrip("/") or None,
        meaning="the address people reach the service at (``https://bp.example.com/bp``): the page's sign-in comes "
        "back under it (else only through ``TRUSTED_PROXIES``)",
    ),
    Setting(
        "PRICES",
        "",
        meaning="prices a month, ``cpu=N,memoryGiB=N,storageGiB=N,currency=EUR`` (a profile's ``prices`` differ): a "
        "fit's, a render's, an instance's ``cost``, a profile's ``usage.monthly``",
    ),
    Setting(
        "TEAMS_BY_MEMBERS", "off", _switch, meaning="``on``: members create teams too (else admins alone)" + SWITCHED
    ),
    Setting("RATE_LIMIT", "6000 per minute", meaning="requests per user, over all workers and hosts (fixed windows)"),
    Setting(
        "USER_CACHE_SECONDS",
        "1",
        float,
        meaning="how stale a worker's copy of a user record may be after another process changed it (0: none)",
    ),
    Setting("TRUSTED_PROXIES", "0", int, meaning="reverse-proxy hops whose ``X-Forwarded-*`` are believed"),
    Setting(
        "REQUEST_TIMEOUT",
        "30",
        int,
        meaning="gunicorn kills a request running longer (seconds); it gets a 503 problem with ``Retry-After``",
    ),
    Setting(
        "SECRET_KEY",
        read=_optional,
        meaning="signs list cursors; set it to rotate or pin it",
        shown="random, in the DB",
    ),
    Setting(
        "REVISIONS_KEPT",
        "100",
        _at_least(2),
        meaning="versions of a blueprint kept, the current one included (at least 2)",
    ),
    Setting(
        "RELEASES_KEPT",
        "20",
        _at_least(1),
        meaning="releases of an instance kept, each pinning its revision",
    ),
    Setting(
        "SOURCE_HOSTS",
        "",
        _hosts,
        meaning="hosts a source's ``https://`` or ``ssh://`` URL may name (comma-separated; ``*.example.com``; "
        "``host:port`` for another port than the scheme's)",
        shown="unset: no sources",
    ),
    Setting(
        "SOURCE_PRIVATE",
        "off",
        _switch,
        meaning="``on``: those hosts may be loopback, private or link-local addresses, or this machine's",
    ),
    Setting(
        "SOURCE_KNOWN_HOSTS",
        read=_optional,
        meaning="the ssh host keys trusted (an ``ssh_known_hosts`` file); ``GIT_SSL_CAINFO`` the CAs, as for git",
    ),
    Setting(
        "ENVIRONMENT_HOSTS",
        "",
        _hosts,
        meaning="hosts an environment's Docker endpoint (tcp, ssh) or git URL may name, as ``SOURCE_HOSTS`` "
        "(tcp's own port: 2376)",
        shown="unset: none",
    ),
    Setting("ENVIRONMENT_PRIVATE", "off", _switch, meaning="``on``: as ``SOURCE_PRIVATE``, for environments"),
    Setting("ENVIRONMENT_SOCKETS", "", _listed, meaning="unix sockets environments may name", shown="unset: none"),
    Setting("DELIVERY_SECONDS", "300", int, meaning="how long one delivery's Docker Compose may run"),
    Setting(
        "RENDER_SECONDS",
        "10",
        float,
        meaning="how long a render's search for the most that fits may go on (a 422 past it)",
    ),
    Setting(
        "RESERVED_NAMESPACES",
        "",
        _listed,
        meaning="namespaces no instance or render takes, beside ``default``, ``kube-*``, ``openshift-*`` "
        "(comma-separated, ``*`` a suffix wildcard)",
    ),
    Setting(
        "INGRESS_NAMESPACE",
        "ingress-nginx",
        meaning="the ingress controller's namespace: its pods reach an instance's routes (a NetworkPolicy); no "
        "instance takes it",
    ),
    Setting(
        "WAIT_IMAGE",
        "busybox:1.36",
        meaning="what a ``wait-for-<service>`` init container runs (``depends_on`` on a cluster)",
    ),
    Setting("TOKEN_SECONDS", str(24 * 3600), int, meaning="lifetime of a bearer token"),
    Setting("AUTH_CACHE_SECONDS", "300", int, meaning="how long verified Basic credentials are remembered in-process"),
    Setting(
        "AUTH_MAX_FAILURES_PER_USER",
        "10",
        int,
        meaning="failed logins per username from one address per window before 429",
    ),
    Setting(
        "AUTH_MAX_FAILURES_PER_ADDRESS",
        "100",
        int,
        meaning="failed logins per client address per window (usernames known there spared)",
    ),
    Setting(
        "AUTH_MAX_FAILURES_PER_ACCOUNT",
        "100",
        int,
        meaning="failed logins per username from every address (addresses it signed in from spared)",
    ),
    Setting(
        "AUTH_FAILURE_WINDOW",
        "300",
        lambda text: timedelta(seconds=int(text)),
        "AUTH_FAILURE_WINDOW_SECONDS",
        meaning="the throttling window, from the first failure",
    ),
)
# gunicorn.conf.py's own: where it listens and how many workers it runs
SERVER = (
    Setting("HOST", "127.0.0.1", meaning="where gunicorn listens", shown="127.0.0.1, 8000"),
    Setting("PORT", "8000", int),
    Setting("WEB_CONCURRENCY", read=_optional, meaning="gunicorn workers", shown="the number of cores"),
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


def server_from_env(environ=os.environ):
    """gunicorn's settings (SERVER), from `environ`."""
    return {setting.key: setting.read(environ.get(setting.read_from, setting.default)) for setting in SERVER}


# Every environment variable the service reads: the tables', and where gunicorn gathers the workers'
# metrics. Tests remove them all from the environment of the services they start, so that a
# caller's settings (the README's `make run` line, say) never reach a test.
GUNICORN_VARIABLES = (*(setting.read_from for setting in SERVER), "PROMETHEUS_MULTIPROC_DIR")
VARIABLES = (*(setting.read_from for setting in SETTINGS), *GUNICORN_VARIABLES)
