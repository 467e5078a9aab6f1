"""The parameters of the history endpoints, and the diff's body."""

import marshmallow as ma

from app.http.paging import NumberCursor, PageArgs
from app.model.schemas import Schema

CURSOR = NumberCursor("revision-cursor")
sign = CURSOR.sign


class RevisionPageArgs(PageArgs):
    cursor = CURSOR


class DiffArgs(Schema):
    # 'from' is a keyword in Python: the attributes have other names
    older = ma.fields.Integer(
        data_key="from", validate=ma.validate.Range(1), metadata={"description": "Default: to - 1."}
    )
    newer = ma.fields.Integer(
        data_key="to", validate=ma.validate.Range(1), metadata={"description": "Default: current."}
    )


class FieldChangeSchema(Schema):
    old = ma.fields.Raw(attribute="from", data_key="from", allow_none=True)
    new = ma.fields.Raw(attribute="to", data_key="to", allow_none=True)


class DiffSchema(Schema):
    older = ma.fields.Integer(attribute="from", data_key="from")
    newer = ma.fields.Integer(attribute="to", data_key="to")
    fields = ma.fields.Dict(
        keys=ma.fields.String(),
        values=ma.fields.Nested(FieldChangeSchema),
        metadata={"description": "Only the writable fields that differ, yml aside."},
    )
    yml = ma.fields.String(metadata={"description": "A unified diff of the two definitions (empty: the same)."})
