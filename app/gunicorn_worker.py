"""gunicorn's sync worker, answering the requests gunicorn itself refuses with a problem body,
and its logger, without the access line.

gunicorn parses the request line and the headers before the app sees them, and answers what it
refuses (a request line over `limit_request_line`, too many or too large headers, malformed
HTTP) with an HTML page of its own; so it answers a request that ran past its timeout, whose
worker it aborts. This worker gives those the contract's problem body instead: the refusal's
status, or a 503 with Retry-After for a request cut short (the process is replaced at once).
"""

import uuid

import orjson
from gunicorn import glogging, util
from gunicorn.http.errors import (
    ExpectationFailed,
    LimitRequestHeaders,
    LimitRequestLine,
    ParseException,
    UnsupportedTransferCoding,
)
from gunicorn.workers.sync import SyncWorker

from app.http.problems import PROBLEM_JSON, problem_body
from app.http.response_headers import API_VERSION

# what gunicorn refuses -> (status, detail); anything else is not valid HTTP (400)
REFUSALS = (
    (LimitRequestLine, 414, "The request line is longer than 8,190 bytes."),
    (LimitRequestHeaders, 431, "Too many header fields, or one longer than 8,190 bytes."),
    (ExpectationFailed, 417, "Only Expect: 100-continue is supported."),
    (UnsupportedTransferCoding, 501, "Only the chunked transfer coding is supported."),
)


RETRY_AFTER_TIMEOUT = 5  # seconds: a new worker is serving by then


class ProblemWorker(SyncWorker):
    def handle_error(self, req, client, addr, exc):
        if isinstance(exc, SystemExit):  # the master aborted this worker: the request ran too long
            self.log.warning("a request ran past the time limit (%s); its worker is replaced", _line(req))
            _answer(client, 503, "The request ran past the service's time limit.", RETRY_AFTER_TIMEOUT)
            return
        if not isinstance(exc, ParseException):
            return super().handle_error(req, client, addr, exc)
        status, detail = next(
            ((code, detail) for kind, code, detail in REFUSALS if isinstance(exc, kind)),
            (400, "The request is not valid HTTP."),
        )
        # not the exception's text: it may quote the request line, which may carry a cursor
        self.log.warning("refused a request: %s %s", status, type(exc).__name__)
        _answer(client, status, detail)


def _line(req):
    """What a log line may say of a request: its method and path, never its query (a cursor)."""
    return f"{req.method} {req.path}" if req is not None else "before its request line was read"


def _answer(client, status, detail, retry_after=None):
    """The problem body, written on the socket as a whole response that closes the connection."""
    request_id = uuid.uuid4().hex
    problem = problem_body(status, detail, request_id=request_id)
    body = orjson.dumps(problem)
    retry = f"Retry-After: {retry_after}\r\n" if retry_after is not None else ""
    head = (
        f"HTTP/1.1 {status} {problem['title']}\r\nContent-Type: {PROBLEM_JSON}\r\n"
        f"Content-Length: {len(body)}\r\nConnection: close\r\n{retry}"
        f"API-Version: {API_VERSION}\r\nX-Request-ID: {request_id}\r\n\r\n"
    )
    util.write_nonblock(client, head.encode("latin-1") + body)


class Logger(glogging.Logger):
    """gunicorn's logger, writing no access line: the app writes the request's one JSON line (with
    its route, user and request id), and gunicorn, once given a logging configuration, would
    write a second one and build it (2 % of a create's CPU) whatever the level."""

    def access(self, resp, req, environ, request_time):
        """Nothing: app/ops/logs.py writes the line."""
