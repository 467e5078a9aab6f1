"""One small client interface over Flask's test client and over a real HTTP socket."""

import base64
import contextlib
import http.client
import json as jsonlib
import socket
import threading
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
    def __init__(self, app, address="127.0.0.1"):
        self.app, self.address = app, address
        self.client = app.test_client()

    def at(self, address):
        """The same client, calling from another address of loopback's 127.0.0.0/8."""
        return FlaskClient(self.app, address)

    def request(self, method, path, json=None, data=None, headers=None, user=None, password=None):
        data, headers = _prepare(json, data, headers, user, password)
        r = self.client.open(
            path, method=method, data=data, headers=headers, environ_base={"REMOTE_ADDR": self.address}
        )
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

    def __init__(self, port, timeout=30, address="127.0.0.1"):
        self.port, self.timeout, self.address = port, timeout, address

    def at(self, address):
        return SocketClient(self.port, self.timeout, address)

    def request(self, method, path, json=None, data=None, headers=None, user=None, password=None):
        data, headers = _prepare(json, data, headers, user, password)
        conn = http.client.HTTPConnection(
            "127.0.0.1", self.port, timeout=self.timeout, source_address=(self.address, 0)
        )
        try:
            conn.connect()
            if conn.sock.getsockname() == conn.sock.getpeername():
                # Polling a port nobody listens on yet can connect the socket to itself (TCP's
                # simultaneous open, when the kernel picks the same port as the source), which
                # would echo the request back as its answer.
                raise ConnectionRefusedError(f"port {self.port}: connected to itself")
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


def chunked(data, size=65536):
    """`data` in HTTP/1.1 chunked transfer coding, piece by piece, then the last chunk."""
    for start in range(0, len(data), size):
        piece = data[start : start + size]
        yield b"%x\r\n" % len(piece) + piece + b"\r\n"
    yield b"0\r\n\r\n"


def send_raw(port, head, body, timeout=30):
    """`head` (the request line and headers) then `body` (bytes, or pieces of them sent as they
    come) over one connection, written from a thread while the answer is read, since a server may
    answer (a 413) and close before it has read the whole body; the answer as a Response."""
    sock = socket.create_connection(("127.0.0.1", port), timeout=timeout)

    def write():
        try:
            sock.sendall(head.replace("\n", "\r\n").encode() + b"\r\n\r\n")
            for piece in [body] if isinstance(body, bytes) else body:
                sock.sendall(piece)
        except OSError:
            pass  # the server stopped reading: its answer says why

    writer = threading.Thread(target=write, daemon=True)
    writer.start()
    try:
        answer = http.client.HTTPResponse(sock)
        answer.begin()
        return Response(answer.status, {k.lower(): v for k, v in answer.getheaders()}, answer.read())
    finally:
        with contextlib.suppress(OSError):  # wakes a writer still blocked in sendall (close alone does not)
            sock.shutdown(socket.SHUT_RDWR)
        sock.close()
        writer.join(timeout)
