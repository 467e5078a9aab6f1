"""The connection to the service: where it is, whose credentials, and what each answer means for
the exit code (3: the service refused, its problem printed; 4: it could not be reached or failed).
"""

import base64
import contextlib
import functools
import os
from datetime import UTC, datetime

import httpx

from bpctl import names, tokens
from bpctl.errors import Misused, Refused, Unreachable, problem_lines

DEFAULT_URL = "http://127.0.0.1:8000"
# A read is quick; the largest import the service takes (1,000 templates) runs about 20 s.
TIMEOUT = httpx.Timeout(120.0, connect=10.0)
HINT = "sign in with `bpctl login`, or set BPCTL_TOKEN, or BPCTL_USERNAME and BPCTL_PASSWORD"


def service_url(url=None):
    """The service's URL: `url`, else BPCTL_URL, else the default; without a final slash."""
    return (url or os.environ.get("BPCTL_URL") or DEFAULT_URL).rstrip("/")


def basic(username, password):
    """The Authorization header of HTTP Basic credentials."""
    return {"Authorization": "Basic " + base64.b64encode(f"{username}:{password}".encode()).decode()}


def bearer(token):
    """The Authorization header of a bearer token."""
    return {"Authorization": "Bearer " + token}


def if_match(doc):
    """The If-Match header naming the version `doc` is (the service's ETag is its `rev`, quoted)."""
    return {"If-Match": f'"{doc["rev"]}"'}


class Session:
    """An HTTP client of one service with the caller's credentials; every call either answers
    with a success or raises Refused or Unreachable."""

    def __init__(self, url, auth=None, stored=None):
        self.url = url.rstrip("/")
        self.stored = stored  # the token entry in use, when it came from `bpctl login`
        self.http = httpx.Client(base_url=self.url, timeout=TIMEOUT, headers=auth or {}, follow_redirects=False)

    @classmethod
    def from_environment(cls, url=None):
        """The service at `url` (else BPCTL_URL, else the default), with the first credentials
        found: BPCTL_TOKEN, then BPCTL_USERNAME with BPCTL_PASSWORD, then the token `bpctl login`
        stored for that URL."""
        url = service_url(url)
        if os.environ.get("BPCTL_TOKEN"):
            return cls(url, bearer(os.environ["BPCTL_TOKEN"]))
        if os.environ.get("BPCTL_USERNAME") and os.environ.get("BPCTL_PASSWORD"):
            return cls(url, basic(os.environ["BPCTL_USERNAME"], os.environ["BPCTL_PASSWORD"]))
        stored = tokens.load().get(url)
        if stored:
            return cls(url, bearer(stored["token"]), stored)
        return cls(url)

    @contextlib.contextmanager
    def _reaching(self):
        """What goes wrong on the way (a refused connection, no answer in time) as Unreachable."""
        try:
            yield
        except httpx.TimeoutException:
            raise Unreachable(f"{self.url} did not answer within {TIMEOUT.read:.0f} s.") from None
        except httpx.HTTPError as exc:
            raise Unreachable(f"could not reach {self.url}: {exc}.") from None

    def request(self, method, path, *, params=None, json=None, headers=None):
        with self._reaching():
            response = self.http.request(method, path, params=_query(params), json=json, headers=headers)
        if response.status_code >= 400:
            raise self.failure(response)
        return response

    def failure(self, response):
        """Refused or Unreachable for an error answer, with the problem the service gave."""
        try:
            problem = response.json()
        except ValueError:
            problem = {}
        if not isinstance(problem, dict):
            problem = {}
        status = response.status_code
        words = problem.get("detail") or problem.get("title") or response.reason_phrase
        message = f"{words} ({status} from {response.request.method} {response.request.url.path})"
        lines = list(problem_lines(problem.get("errors") or {}))
        if status == 401:
            lines.append(self._expired() or HINT + ".")
        if status >= 500:
            lines.append(f"request id: {problem.get('requestId', response.headers.get('X-Request-ID', '?'))}")
            return Unreachable(message, lines, status)
        refused = Refused(message, lines, status)
        refused.problem = problem
        return refused

    def _expired(self):
        if self.stored and datetime.fromisoformat(self.stored["expiresAt"]) <= datetime.now(UTC):
            return f"The token stored by `bpctl login` expired at {self.stored['expiresAt']}: sign in again."
        return None

    def get(self, path, params=None):
        return self.request("GET", path, params=params).json()

    def send(self, method, path, json=None, params=None, headers=None):
        response = self.request(method, path, json=json, params=params, headers=headers)
        return response.json() if response.content else None

    def items(self, path, params=None, limit=None):
        """The items of a keyset list, page after page, at most `limit` of them (None: all)."""
        params = dict(params or {})
        while limit is None or limit > 0:
            params["limit"] = 200 if limit is None else min(limit, 200)
            page = self.get(path, params)
            yield from page["items"]
            if limit is not None:
                limit -= len(page["items"])
            if not page["next"]:
                return
            params["cursor"] = page["next"]

    def stream(self, path, params):
        """A long answer's bytes as they arrive (an export of the whole catalog), never held whole."""
        with self._reaching(), self.http.stream("GET", path, params=_query(params)) as response:
            if response.status_code >= 400:
                response.read()
                raise self.failure(response)
            yield from response.iter_bytes()

    def import_format(self, name):
        """How the service reads the import format `name` (`GET /formats`: its title, what it makes,
        its folder's layout); a usage error naming those it reads for another name."""
        served = {fmt["format"]: fmt for fmt in self.get("/formats")["imports"]}
        if name not in served:
            raise Misused(f"--format {name!r} is none the service reads: {', '.join(served)}.")
        return served[name]

    def blueprint(self, ref, owner=None):
        """The blueprint `ref` names (bpctl/names.py; `owner`'s alone, where given)."""
        return names.resolved(self, "blueprints", "blueprint", ref, owner)

    def profile(self, ref):
        """The profile `ref` names (bpctl/names.py)."""
        return names.resolved(self, "profiles", "profile", ref)

    def instance(self, ref):
        """The instance `ref` names (bpctl/names.py)."""
        return names.resolved(self, "instances", "instance", ref)

    def source(self, ref):
        """The source `ref` names: its id, else its URL (bpctl/names.py)."""
        return names.resolved(self, "sources", "source", ref)

    @functools.cached_property
    def username(self):
        """Who the caller is (`GET /users/me`), asked once."""
        return self.get("/users/me")["username"]

    def default_profile(self):
        """The caller's default profile, None when they have none."""
        mine = {"defaultProfile": True, "owner": self.username}
        return next(iter(self.items("/profiles", mine, limit=1)), None)


def _query(params):
    """Query parameters as the service reads them: booleans as true/false, None left out."""
    if not params:
        return None
    query = {}
    for key, value in params.items():
        if value is None or value == ():
            continue
        query[key] = ("true" if value else "false") if isinstance(value, bool) else value
    return query
