"""gunicorn's sync worker, answering the requests gunicorn itself refuses with a problem body,
and its logger, without the access line.

gunicorn parses the request line and the headers before the app sees them, and answers what it
refuses (a request line over `limit_request_line`, too many or too large headers, malformed
HTTP) with an HTML page of its own. This worker gives those the contract's problem body instead.
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


class ProblemWorker(SyncWorker):
    def handle_error(self, req, client, addr, exc):
        if not isinstance(exc, ParseException):
            return super().handle_error(req, client, addr, exc)
        status, detail = next(
            ((code, detail) for kind, code, detail in REFUSALS if isinstance(exc, kind)),
            (400, "The request is not valid HTTP."),
        )
        request_id = uuid.uuid4().hex
        # not the exception's text: it may quote the request line, which may carry a cursor
        self.log.warning("refused a request: %s %s, request id %s", status, type(exc).__name__, request_id)
        problem = problem_body(status, detail, request_id=request_id)
        body = orjson.dumps(problem)
        head = (
            f"HTTP/1.1 {status} {problem['title']}\r\nContent-Type: {PROBLEM_JSON}\r\n"
            f"Content-Length: {len(body)}\r\nConnection: close\r\n"
            f"API-Version: {API_VERSION}\r\nX-Request-ID: {request_id}\r\n\r\n"
        )
        util.write_nonblock(client, head.encode("latin-1") + body)


class Logger(glogging.Logger):
    """gunicorn's logger, writing no access line: the app writes the request's one JSON line (with
    its route, user and request id), and gunicorn, once given a logging configuration, would
    write a second one and build it (2 % of a create's CPU) whatever the level."""

    def access(self, resp, req, environ, request_time):
        """Nothing: app/ops/logs.py writes the line."""
