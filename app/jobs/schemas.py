"""A job's body."""

import marshmallow as ma

from app.model.fields import Id, Timestamp
from app.model.schemas import Schema


class JobSchema(Schema):
    id = Id()
    kind = ma.fields.String(metadata={"description": "`import`, `sync`, `upgrade` or `deliver`."})
    state = ma.fields.String(metadata={"description": "`queued`, `running`, `done` or `failed`."})
    done = ma.fields.Integer(metadata={"description": "Templates or instances done so far."})
    total = ma.fields.Integer(allow_none=True, metadata={"description": "How many there are (null: not known yet)."})
    report = ma.fields.Raw(
        allow_none=True,
        metadata={"description": "Once done: the import's report (a sync's with `commit`), or the upgrade's results."},
    )
    error = ma.fields.String(allow_none=True, metadata={"description": "Once failed: why."})
    source = ma.fields.String(allow_none=True, metadata={"description": "A sync's source."})
    startedBy = ma.fields.String()
    owner = ma.fields.String(metadata={"description": "Whom it works for."})
    createdAt = Timestamp()
    updatedAt = Timestamp()
