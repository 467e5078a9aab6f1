"""The service's own failures. Storage, access and domain code raise them, never a response:
one place, app/http/problems.py, turns each into its problem body (status, detail, field errors,
headers). Base layer: imports nothing of the app."""

import math


class Problem(Exception):
    """A request the service refuses, with the status that says why; `detail` (else the status's
    usual words) and `headers` go into the response as they are, so never put a secret in them."""

    status = 500
    errors = None
    current = None  # a 412's version as stored: its problem body says it
    members = None  # more members of the problem body (a 409's `quota`)

    def __init__(self, detail=None, headers=None):
        super().__init__(detail)
        self.detail, self.headers = detail, dict(headers or {})

    def __str__(self):
        return str(self.errors or self.detail or self.status)


class BadRequest(Problem):
    status = 400


class Unauthorized(Problem):
    status = 401


class Forbidden(Problem):
    status = 403


class NotFound(Problem):
    status = 404


class Conflict(Problem):
    status = 409


class NoRoom(Conflict):
    """A 409: a profile has no room for an admission; `quota` says, per resource the profile caps,
    what is required, used, capped and available (the problem body carries it)."""

    def __init__(self, detail, quota):
        super().__init__(detail)
        self.members = {"quota": quota}


class PreconditionFailed(Problem):
    """A 412: `current` (the stored version) is not the one the client's If-Match names; the
    answer says which version it is and who saved it, so a client can show the change and retry."""

    status = 412

    def __init__(self, current):
        saved_by = current.get("updatedBy") or current.get("owner")
        super().__init__(f"It has changed since you read it: revision {current['rev']} is {saved_by}'s.")
        self.current = {"rev": current["rev"], "updatedBy": saved_by, "updatedAt": current.get("updatedAt")}


class UnsupportedMediaType(Problem):
    status = 415


class Invalid(Problem):
    """A 422 with the fields at fault: {"field": ["message"]}, nested or dotted."""

    status = 422

    def __init__(self, errors):
        super().__init__()
        self.errors = errors


class TooManyRequests(Problem):
    """A 429: the caller may try again in `retry_after` seconds (at least one)."""

    status = 429

    def __init__(self, detail, retry_after):
        super().__init__(detail, {"Retry-After": str(max(math.ceil(retry_after), 1))})


class Unavailable(Problem):
    """A 503: the database cannot be reached; the caller retries shortly. `detail` says what
    became of the request where it is more than "nothing" (a write it may have made)."""

    status = 503

    def __init__(self, detail=None):
        super().__init__(detail, headers={"Retry-After": "2"})


class Undecided(Unavailable):
    """A 503: a write was sent, and the database has not said since whether it took place."""
