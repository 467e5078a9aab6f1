"""A source's body and its last sync, a sync's options, and the list's filters."""

import marshmallow as ma

from app.http.paging import PageArgs
from app.imports.formats import FORMATS
from app.imports.schemas import ImportDefaults
from app.jobs.schemas import JobSchema
from app.model.accounts import OWNER, Can, Owner
from app.model.fields import Id, Pattern, Reported, StrictBoolean, Timestamp
from app.model.schemas import Schema

MIN_INTERVAL, MAX_INTERVAL = 60, 7 * 24 * 3600
REF = Pattern(
    r"(?!-)(?!.*\.\.)(?!.*//)[A-Za-z0-9._/-]{1,200}(?<![./])",
    error="A branch, a tag or a commit: letters, digits, . _ / -, without `..` or a leading `-`.",
)


class LastSyncSchema(Schema):
    job = ma.fields.String(metadata={"description": "Its job (/jobs/{id})."})
    state = ma.fields.String(metadata={"description": "`running`, `done` or `failed`."})
    at = Timestamp()
    commit = ma.fields.String(allow_none=True)
    counts = ma.fields.Dict(keys=ma.fields.String(), values=ma.fields.Integer(), allow_none=True)
    error = ma.fields.String(allow_none=True)


class CatalogSourceSchema(Schema):
    id = Id()
    url = ma.fields.String(
        required=True,
        validate=ma.validate.Length(1, 2000),
        metadata={"description": "https:// or ssh:// to a host SOURCE_HOSTS names (checked before any connection)."},
    )
    ref = ma.fields.String(
        allow_none=True, load_default=None, validate=REF, metadata={"description": "Default: the remote's HEAD."}
    )
    path = ma.fields.String(
        load_default="",
        validate=ma.validate.Length(max=1000),
        metadata={"description": "The folder (or file) `bpctl import` would read; default: the root."},
    )
    format = ma.fields.String(required=True, validate=ma.validate.OneOf(list(FORMATS)))
    interval = ma.fields.Integer(
        strict=True,
        allow_none=True,
        load_default=None,
        validate=ma.validate.Range(MIN_INTERVAL, MAX_INTERVAL),
        metadata={"description": "Seconds between scheduled syncs (null: only on request or a push)."},
    )
    defaults = ma.fields.Nested(ImportDefaults, load_default=dict, metadata={"description": "As an import's."})
    secret = ma.fields.String(
        load_only=True,
        allow_none=True,
        validate=ma.validate.Length(16, 256),
        metadata={"writeOnly": True, "description": "The webhook's secret (never shown again)."},
    )
    token = ma.fields.String(
        load_only=True,
        allow_none=True,
        validate=ma.validate.Length(1, 4096),
        metadata={"writeOnly": True, "description": "An https token for a private repository (never shown again)."},
    )
    deployKey = ma.fields.String(
        load_only=True,
        allow_none=True,
        validate=ma.validate.Length(1, 16384),
        metadata={"writeOnly": True, "description": "An ssh private key (never shown again)."},
    )
    hasSecret = ma.fields.Function(lambda doc: doc.get("sealedSecret") is not None, dump_only=True)
    hasToken = ma.fields.Function(lambda doc: doc.get("sealedToken") is not None, dump_only=True)
    hasDeployKey = ma.fields.Function(lambda doc: doc.get("sealedDeployKey") is not None, dump_only=True)
    webhook = ma.fields.String(dump_only=True, metadata={"description": "Where a push webhook posts (its path)."})
    lastSync = Reported(LastSyncSchema)
    owner = Owner()
    can = Can("change", "delete")
    createdAt = Timestamp()
    updatedAt = Timestamp()
    updatedBy = ma.fields.String(dump_only=True)
    rev = ma.fields.Integer(dump_only=True)


class SyncArgs(Schema):
    force = StrictBoolean(
        load_default=False, metadata={"description": "true: overwrite blueprints changed here (no `conflict`)."}
    )


class SourceQuery(PageArgs):
    owner = ma.fields.String(validate=OWNER, metadata={"description": "Only this owner's sources."})


class WebhookAnswerSchema(Schema):
    job = ma.fields.Nested(JobSchema, allow_none=True, metadata={"description": "The sync it started (or that runs)."})
    detail = ma.fields.String()
