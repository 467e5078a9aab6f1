"""The profile body, its `limits` (the caps normalized), and the profile list's filters."""

import marshmallow as ma

from app.http.crud import EchoedId
from app.http.paging import ListArgs
from app.model import quantities
from app.model.fields import Cap, Id, Name, QueryBoolean, StrictBoolean, Timestamp
from app.model.schemas import Schema


class LimitsSchema(Schema):
    memoryBytes = ma.fields.Integer(allow_none=True)
    cpuMillis = ma.fields.Integer(allow_none=True)
    containers = ma.fields.Integer(allow_none=True)
    storageBytes = ma.fields.Integer(allow_none=True)


class ProfileSchema(EchoedId):
    id = Id()
    name = Name()
    defaultProfile = StrictBoolean(load_default=False)
    memoryCap = Cap(quantities.MEMORY, "512Mi")
    cpuCap = Cap(quantities.CPU, "500m")
    containerCap = Cap(quantities.CONTAINERS, "10")
    storageCap = Cap(quantities.STORAGE, "20Gi")
    limits = ma.fields.Nested(LimitsSchema, dump_only=True)
    owner = ma.fields.String(dump_only=True)
    createdAt = Timestamp()
    updatedAt = Timestamp()

    @ma.pre_dump
    def _add_limits(self, doc, **kwargs):
        return {**doc, "limits": quantities.limits(doc)}


class ProfileDraftSchema(ProfileSchema):
    id = Id(draft=True)


class ProfileQuery(ListArgs):
    defaultProfile = QueryBoolean()
    fits = ma.fields.String(metadata={"description": "Only profiles this blueprint (an id) fits."})
