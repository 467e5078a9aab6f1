"""One small client interface over Flask's test client and over a real HTTP socket."""

import base64
import http.client
import json as jsonlib
from dataclasses import dataclass


@dataclass
class Response:
    status: int
    headers: dict  # lower-cased names
    body: bytes

    @property
    def json(self):
        return jsonlib.loads(self.body) if self.body else None


PASSWORD = "correct horse battery"  # every test user's


def basic(user, password=PASSWORD):
    """The Authorization header value of HTTP Basic credentials."""
    return "Basic " + base64.b64encode(f"{user}:{password}".encode()).decode()


def _prepare(json, data, headers, user, password):
    headers = dict(headers or {})
    if user is not None:
        headers.setdefault("Authorization", basic(user, password or PASSWORD))
    if json is not None:
        data = jsonlib.dumps(json)
        headers.setdefault("Content-Type", "application/json")
    if isinstance(data, str):
        data = data.encode()
    return data, headers


class FlaskClient:
    def __init__(self, app):
        self.client = app.test_client()

    def request(self, method, path, json=None, data=None, headers=None, user=None, password=None):
        data, headers = _prepare(json, data, headers, user, password)
        r = self.client.open(path, method=method, data=data, headers=headers)
        return Response(r.status_code, {k.lower(): v for k, v in r.headers.items()}, r.get_data())

    def get(self, path, **kw):
        return self.request("GET", path, **kw)

    def post(self, path, **kw):
        return self.request("POST", path, **kw)

    def patch(self, path, **kw):
        return self.request("PATCH", path, **kw)

    def put(self, path, **kw):
        return self.request("PUT", path, **kw)

    def delete(self, path, **kw):
        return self.request("DELETE", path, **kw)


class SocketClient(FlaskClient):
    """The same over a real socket to 127.0.0.1 (also used by `make bench` and `make fault-test`)."""

    def __init__(self, port, timeout=30):
        self.port, self.timeout = port, timeout

    def request(self, method, path, json=None, data=None, headers=None, user=None, password=None):
        data, headers = _prepare(json, data, headers, user, password)
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=self.timeout)
        try:
            conn.request(method, path, body=data, headers=headers)
            r = conn.getresponse()
            return Response(r.status, {k.lower(): v for k, v in r.getheaders()}, r.read())
        finally:
            conn.close()


def create(api, collection, user="alice", **fields):
    """POST a resource that must be created; the 201 response."""
    r = api.post(f"/{collection}", json=fields, user=user)
    assert r.status == 201, r.json
    return r


def assert_problem(r, status):
    assert r.status == status
    assert r.headers["content-type"] == "application/problem+json"
    body = r.json
    assert body["status"] == status and body["title"] and body["detail"] and body["type"]
    assert body["requestId"] == r.headers["x-request-id"]
    assert r.headers["api-version"] == "1.0.0"
    return body


def bearer(token):
    return {"Authorization": f"Bearer {token}"}


def token_for(api, user="alice"):
    r = api.post("/tokens", user=user)
    assert r.status == 201
    return r.json["token"]
