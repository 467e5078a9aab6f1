"""The schemas' base on its own: a stored document's fields read as its keys, timestamps in UTC."""

from datetime import UTC, datetime, timedelta, timezone

import marshmallow as ma

from app.model.fields import rfc3339
from app.model.schemas import Schema


def test_a_missing_field_named_like_a_dicts_method_is_left_out_not_the_method():
    class Kept(Schema):
        values = ma.fields.Raw()
        items = ma.fields.List(ma.fields.String())
        routes = ma.fields.Raw(attribute="requirements.routes")

    assert Kept().dump({}) == {}
    assert Kept().dump({"values": {"a": 1}, "requirements": {"routes": []}}) == {"values": {"a": 1}, "routes": []}


def test_a_timestamp_is_written_in_utc_its_milliseconds_cut_not_rounded():
    moment = datetime(2026, 12, 3, 7, 4, 5, 999_999, tzinfo=timezone(timedelta(hours=2)))
    assert rfc3339(moment) == "2026-12-03T05:04:05.999Z"
    assert rfc3339(moment.replace(tzinfo=None)) == "2026-12-03T07:04:05.999Z"  # naive: taken as UTC
    assert rfc3339(datetime(987, 1, 2, tzinfo=UTC)) == "0987-01-02T00:00:00.000Z"  # RFC 3339: four digits
