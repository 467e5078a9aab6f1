"""The instance body, an upgrade's body and answer, and the instance list's filters."""

import marshmallow as ma

from app.http.paging import ListArgs, NumberCursor, PageArgs
from app.model.accounts import Can, Owner, TeamName
from app.model.fields import DNS_LABEL, Id, QueryBoolean, Reported, StrictBoolean, Timestamp
from app.model.schemas import CostSchema, ObservedUsageSchema, RequirementsSchema, Routes, Schema, TargetSchema

VALUES = {"keys": ma.fields.String(), "values": ma.fields.Raw(allow_none=True)}


WHERE_DELIVERED = {"description": "Where the service delivers it: one of its profile's environments; set on create."}


class DeliverySchema(Schema):
    state = ma.fields.String(
        metadata={"description": "`pending`, `applying`, `applied`, `failed` or `removing` (its last delivery)."}
    )
    release = ma.fields.Integer(metadata={"description": "The release delivered (or being delivered)."})
    job = ma.fields.String(allow_none=True, metadata={"description": "The delivery's job (/jobs/{id})."})
    at = Timestamp()
    commit = ma.fields.String(allow_none=True, metadata={"description": "git: the commit it made."})
    error = ma.fields.String(allow_none=True, metadata={"description": "Why it failed."})


class ObservedServiceSchema(Schema):
    name = ma.fields.String()
    containers = ma.fields.Integer(metadata={"description": "Its containers on the engine, running or not."})
    running = ma.fields.Integer()
    healthy = ma.fields.Integer(metadata={"description": "Running, and healthy where it has a health check."})
    memoryBytes = ma.fields.Integer(
        metadata={"description": "The memory its running containers may take (without a limit: the engine's)."}
    )
    cpuMillis = ma.fields.Integer(
        metadata={"description": "The cpu its running containers may take (without a limit: the engine's)."}
    )


class DriftSchema(Schema):
    path = ma.fields.String(metadata={"description": "Such as `services.web.memoryBytes`."})
    admitted = ma.fields.Raw(allow_none=True, metadata={"description": "What its release declares (null: nothing)."})
    observed = ma.fields.Raw(allow_none=True, metadata={"description": "What the engine holds (null: no limit)."})
    container = ma.fields.String(metadata={"description": "The container it was seen on, where one."})


class ObservedSchema(Schema):
    at = Timestamp()
    state = ma.fields.String(
        metadata={
            "description": "`running`, `starting`, `degraded` (a container down or unhealthy), `stopped`, "
            "`missing` or `drifted`."
        }
    )
    services = ma.fields.List(ma.fields.Nested(ObservedServiceSchema))
    usage = ma.fields.Nested(
        ObservedUsageSchema, allow_none=True, metadata={"description": "null in a git environment: nothing runs there."}
    )
    commit = ma.fields.String(metadata={"description": "git: the commit of the branch observed."})
    drift = ma.fields.List(
        ma.fields.Nested(DriftSchema),
        metadata={
            "description": "What runs beyond or beside what was admitted: more containers, a limit changed, a "
            "service the render does not have."
        },
    )


class DeliveryReportSchema(Schema):
    instance = ma.fields.String()
    release = ma.fields.Integer(allow_none=True)
    state = ma.fields.String()
    error = ma.fields.String(allow_none=True)


class InstanceSchema(TargetSchema):
    id = Id()
    name = ma.fields.String(
        required=True,
        validate=DNS_LABEL,
        metadata={"description": "A Compose project name and a Kubernetes namespace alike; unique per owner."},
    )
    namespace = ma.fields.String(
        validate=DNS_LABEL,
        allow_none=True,
        metadata={
            "description": "With `target: kubernetes`: the namespace it lives in (default: its name), unique across "
            "the service and held for its life; null on Compose."
        },
    )
    blueprint = ma.fields.String(required=True, metadata={"description": "The id of a blueprint you may read."})
    rev = ma.fields.Integer(
        attribute="blueprintRev",
        load_default=None,
        validate=ma.validate.Range(min=1),
        metadata={"description": "The blueprint's revision rendered; on create, the current one unless given."},
    )
    profile = ma.fields.String(required=True, metadata={"description": "The id of a profile you may read."})
    values = ma.fields.Dict(
        load_default=dict,
        **VALUES,
        metadata={
            "description": "The values given, checked as a render checks them; writeOnly and generated (x-generate) "
            "ones shown as null: they are read only in /yml."
        },
    )
    release = ma.fields.Integer(
        dump_only=True, metadata={"description": "Its current release: 1 on create, +1 per upgrade and rollback."}
    )
    requirements = ma.fields.Nested(RequirementsSchema, dump_only=True)
    addresses = Routes("Where it answers: its routes, each with the host its render ends with.")
    cost = ma.fields.Nested(
        CostSchema,
        dump_only=True,
        allow_none=True,
        metadata={"description": "What its requirements cost a month at its profile's prices now (null: none)."},
    )
    environment = ma.fields.String(
        validate=DNS_LABEL, allow_none=True, load_default=None, dump_default=None, metadata=WHERE_DELIVERED
    )
    delivery = Reported(DeliverySchema)
    observed = Reported(ObservedSchema, "What its environment's last observation found (null: not observed yet).")
    owner = Owner()
    can = Can("change", "delete", "readYml")
    createdAt = Timestamp()
    updatedAt = Timestamp()
    updatedBy = ma.fields.String(dump_only=True)

    @ma.validates_schema
    def _namespace_needs_the_target(self, data, **kwargs):
        if data.get("namespace") is not None and data.get("target") != "kubernetes":
            raise ma.ValidationError("Needs `target: kubernetes`.", "namespace")


class InstanceDraftSchema(InstanceSchema):
    id = Id(draft=True)


class UpgradeArgs(Schema):
    rev = ma.fields.Integer(
        validate=ma.validate.Range(min=1),
        metadata={"description": "The revision to render; omitted, the blueprint's current one (older: a rollback)."},
    )
    values = ma.fields.Dict(
        load_default=dict, **VALUES, metadata={"description": "Values replacing the kept ones of the same names."}
    )
    namespace = ma.fields.String(
        validate=DNS_LABEL,
        metadata={
            "description": "For an instance of a Kubernetes blueprint admitted before instances held namespaces: "
            "the namespace it moves into (refused once it has one)."
        },
    )


class UpgradeSchema(InstanceSchema):
    diff = ma.fields.String(metadata={"description": "The unified diff of the rendered definitions, old to new."})


class InstanceQuery(ListArgs):
    profile = ma.fields.String(metadata={"description": "Only the instances that spend from this profile."})
    blueprint = ma.fields.String(metadata={"description": "Only the instances of this blueprint."})
    behind = QueryBoolean(
        metadata={"description": "true: only those rendered at a revision older than their blueprint's current one."}
    )


class WithdrawArgs(Schema):
    purge = QueryBoolean(
        load_default=False,
        metadata={"description": "Delivered to a Docker Engine: its project's named volumes are removed too."},
    )


RELEASE_CURSOR = NumberCursor("release-cursor")


class ReleasePageArgs(PageArgs):
    cursor = RELEASE_CURSOR


class ReleaseSchema(Schema):
    release = ma.fields.Integer(metadata={"description": "1 on create, +1 per upgrade and rollback."})
    rev = ma.fields.Integer(metadata={"description": "The blueprint's revision it rendered."})
    values = ma.fields.Dict(**VALUES, metadata={"description": "The values it used, secrets and generated ones null."})
    at = Timestamp()
    by = ma.fields.String(metadata={"description": "Who made it."})


class RollbackArgs(Schema):
    release = ma.fields.Integer(
        required=True,
        strict=True,
        validate=ma.validate.Range(min=1),
        metadata={"description": "The release to restore."},
    )


class FleetUpgradeArgs(Schema):
    blueprint = ma.fields.String(metadata={"description": "The instances of this blueprint."})
    source = ma.fields.String(metadata={"description": "The instances of the blueprints this source made."})
    profile = ma.fields.String(metadata={"description": "The instances that spend from this profile."})
    team = TeamName(metadata={"description": "The instances this team owns."})
    behind = StrictBoolean(load_default=False, metadata={"description": "true: only those behind their blueprint."})
    rev = ma.fields.Integer(
        strict=True,
        validate=ma.validate.Range(min=1),
        metadata={"description": "With `blueprint`: the revision to move to (default: each blueprint's current)."},
    )
    ifMatch = ma.fields.Dict(
        keys=ma.fields.String(),
        values=ma.fields.String(),
        load_default=dict,
        validate=ma.validate.Length(max=10_000),
        metadata={"description": "{instance id: ETag}: upgrade those only as they were read (a dry run gives each's)."},
    )

    @ma.validates_schema
    def _a_selection(self, data, **kwargs):
        if not any(data.get(key) for key in ("blueprint", "source", "profile", "team")):
            raise ma.ValidationError("Name a blueprint, a source, a profile or a team.", "_schema")
        if data.get("rev") is not None and not data.get("blueprint"):
            raise ma.ValidationError("A revision is a blueprint's: give `blueprint` too.", "rev")


class FleetResultSchema(Schema):
    instance = ma.fields.String()
    name = ma.fields.String()
    old = ma.fields.Integer(data_key="from", attribute="from", metadata={"description": "The revision it was at."})
    new = ma.fields.Integer(data_key="to", attribute="to", allow_none=True, metadata={"description": "It moves to."})
    outcome = ma.fields.String(metadata={"enum": ["upgraded", "unchanged", "refused", "failed"]})
    etag = ma.fields.String(metadata={"description": "Its ETag after (a dry run: as read), for `ifMatch`."})
    diff = ma.fields.String(metadata={"description": "The unified diff of its renderings (it holds secrets)."})
    added = ma.fields.List(ma.fields.String(), metadata={"description": "Services (Compose) or Kind/name added."})
    removed = ma.fields.List(ma.fields.String(), metadata={"description": "Services or Kind/name removed."})
    parameters = ma.fields.Dict(
        metadata={"description": "`added`: {name: the value it takes (its default; null: a secret)}; `removed`: names."}
    )
    problems = ma.fields.List(ma.fields.String())
    quota = ma.fields.Dict(metadata={"description": "A refusal for want of room: per resource, as a 409's."})


class FleetUpgradeSchema(Schema):
    results = ma.fields.List(ma.fields.Nested(FleetResultSchema))
