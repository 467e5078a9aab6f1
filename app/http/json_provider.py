"""JSON in and out of the app (Flask's `app.json`): orjson, several times faster than the standard
library for our small documents, reading every text RFC 8259 calls JSON."""

import json

import orjson
from flask import current_app
from flask.json.provider import JSONProvider


def _refuse_constant(name):
    raise ValueError(f"{name} is not JSON")


class OrjsonProvider(JSONProvider):
    def dumps(self, obj, **kwargs):
        return orjson.dumps(obj).decode()

    def loads(self, s, **kwargs):
        """orjson refuses a number beyond a double's range (`1e400`), which RFC 8259 allows; the
        standard library reads it as an infinity, which the schemas then refuse as a value (422,
        naming the field). Everything else orjson refuses stays refused: NaN and Infinity, lone
        surrogates (orjson.dumps refuses to write them back), nesting it would not follow."""
        try:
            return orjson.loads(s)
        except orjson.JSONDecodeError as exc:
            error = exc
        try:
            text = s.decode("utf-8") if isinstance(s, bytes) else s
            value = json.loads(text, parse_constant=_refuse_constant)
            orjson.dumps(value)
        except (ValueError, RecursionError, orjson.JSONEncodeError):
            raise error from None
        return value

    def response(self, *args, **kwargs):
        """As `flask.jsonify` documents it: one argument is the value, several a list, keywords an
        object (both at once is an error)."""
        if args and kwargs:
            raise TypeError("jsonify() takes arguments or keywords, not both")
        obj = kwargs or (args[0] if len(args) == 1 else list(args) or None)
        return current_app.response_class(orjson.dumps(obj), mimetype="application/json")
