"""The blueprint body, its requirements, the fit of a blueprint to a profile, and the blueprint
list's filters."""

import marshmallow as ma

from app import definitions
from app.definitions import pod_security
from app.definitions.parameters import Parameters
from app.http.crud import EchoedId
from app.http.paging import Exact, ListArgs
from app.model.accounts import Can, EntitledTeams, EntitledUsers, Owner
from app.model.fields import (
    DNS_LABEL,
    Id,
    Name,
    Pattern,
    QueryBoolean,
    StrictBoolean,
    Text,
    Timestamp,
    Trimmed,
    Yaml,
)
from app.model.schemas import CostSchema, RequirementsSchema, Routes, Schema, Source, Target, TargetSchema

ENTITLEMENTS = ("OWNER", "PUBLIC", "CUSTOM", "TEAM")
# A blueprint's writable fields: what a version keeps, a diff compares and an export carries
WRITABLE = (
    "name",
    "version",
    "description",
    "blueprintType",
    "yml",
    "entitlementType",
    "entitledUsers",
    "entitledTeams",
    "inactive",
    "tags",
    "parameters",
)
BLUEPRINT_TYPE = Pattern(r"[A-Za-z0-9_.-]{1,64}", error="1-64 characters of letters, digits, _ - .")
TAG = Pattern(r"[A-Za-z0-9_.-]{1,64}", error="1-64 characters of letters, digits, _ - .")
MAX_TAGS = 20


class Tag(ma.fields.String):
    """Stored lowercase."""

    def __init__(self, **kwargs):
        super().__init__(validate=TAG, **kwargs)

    def _deserialize(self, value, attr, data, **kwargs):
        return super()._deserialize(value, attr, data, **kwargs).lower()


class Tags(ma.fields.List):
    """Up to 20 tags, lowercase, each once, in the order first sent; null means none."""

    def __init__(self, **kwargs):
        kwargs.setdefault("load_default", list)
        super().__init__(Tag(), allow_none=True, validate=ma.validate.Length(max=MAX_TAGS), **kwargs)

    def _deserialize(self, value, attr, data, **kwargs):
        return list(dict.fromkeys(super()._deserialize(value, attr, data, **kwargs)))

    def deserialize(self, value, attr=None, data=None, **kwargs):
        return [] if value is None else super().deserialize(value, attr, data, **kwargs)


class Entitlement(ma.fields.String):
    """Case-insensitive in, uppercase out."""

    def __init__(self, **kwargs):
        kwargs.setdefault("load_default", "OWNER")
        super().__init__(validate=ma.validate.OneOf(ENTITLEMENTS), metadata={"enum": list(ENTITLEMENTS)}, **kwargs)

    def _deserialize(self, value, attr, data, **kwargs):
        return super()._deserialize(value, attr, data, **kwargs).strip().upper()


class BlueprintSchema(EchoedId):
    id = Id()
    name = Name()
    version = Text(validate=Trimmed(max=64, one_line=True))
    description = Text(validate=Trimmed(max=10_000))
    blueprintType = Text(validate=BLUEPRINT_TYPE)
    yml = Yaml(definitions.loader_for, "blueprintType")
    entitlementType = Entitlement()
    entitledUsers = EntitledUsers(load_default=None)
    entitledTeams = EntitledTeams(
        load_default=None,
        dump_default=list,
        metadata={"description": "With TEAM or CUSTOM: teams whose members and maintainers use it; viewers read it."},
    )
    inactive = StrictBoolean(load_default=False)
    tags = Tags(dump_default=list)  # none where none are stored
    parameters = Parameters(
        metadata={"description": "The template's variables, as a JSON Schema (2020-12) of an object."}
    )
    requirements = ma.fields.Nested(RequirementsSchema, dump_only=True, allow_none=True)
    routes = Routes("Which service answers where (`x-routes`, Traefik router labels), at the defaults.")
    source = Source()
    stars = ma.fields.Integer(dump_only=True, metadata={"description": "How many users starred it."})
    starred = ma.fields.Boolean(dump_only=True, metadata={"description": "Whether the caller starred it."})
    rev = ma.fields.Integer(dump_only=True, metadata={"description": "1 on create, +1 per change; the ETag."})
    owner = Owner()
    can = Can("change", "delete", "deploy")
    createdAt = Timestamp()
    updatedAt = Timestamp()
    updatedBy = ma.fields.String(dump_only=True, metadata={"description": "Who made this version."})


class BlueprintDraftSchema(BlueprintSchema):
    id = Id(draft=True)


class BlueprintQuery(ListArgs):
    blueprintType = ma.fields.String(validate=BLUEPRINT_TYPE)
    fitsProfile = ma.fields.String(metadata={"description": "Only blueprints that fit this profile's caps."})
    entitlementType = Entitlement(load_default=ma.missing)
    inactive = QueryBoolean()
    tag = ma.fields.List(Tag(), metadata={"description": "Only blueprints with this tag; repeat it: all must match."})
    starred = QueryBoolean(
        metadata={"description": "true: only what the caller starred; false: only what they did not."}
    )
    source = Exact(200, "Made by the import (or the source followed) of this name: `source.name`.")
    sourceKey = Exact(1000, "Made from the template of this key in its import: `source.key`.")


VERDICTS = ("fits", "exceeds", "uncapped", "unbounded", "unknown")


class ResourceFitSchema(Schema):
    required = ma.fields.Integer(allow_none=True)
    cap = ma.fields.Integer(allow_none=True)
    headroom = ma.fields.Integer(allow_none=True, metadata={"description": "available - required"})
    used = ma.fields.Integer(metadata={"description": "What the profile's instances use."})
    available = ma.fields.Integer(allow_none=True, metadata={"description": "cap - used; null where uncapped."})
    verdict = ma.fields.String(metadata={"enum": list(VERDICTS)})
    defaulted = ma.fields.List(
        ma.fields.String(),
        metadata={"description": "Sorted: the containers that declare none of it and took the profile's default."},
    )
    overMax = ma.fields.List(
        ma.fields.String(),
        metadata={"description": "Sorted: `<container>: <amount> > <max>` for each over the profile's containerMax."},
    )


class FitResourcesSchema(Schema):
    memory = ma.fields.Nested(ResourceFitSchema, metadata={"description": "bytes"})
    cpu = ma.fields.Nested(ResourceFitSchema, metadata={"description": "millicores"})
    containers = ma.fields.Nested(ResourceFitSchema)
    storage = ma.fields.Nested(ResourceFitSchema, metadata={"description": "bytes"})


class ViolationSchema(Schema):
    path = ma.fields.String(metadata={"description": "Where: `services.web.privileged`, `yml.0.spec.hostNetwork`."})
    control = ma.fields.String(metadata={"description": "The Pod Security Standards' control it breaks."})


class PodSecuritySchema(Schema):
    level = ma.fields.String(metadata={"enum": list(pod_security.LEVELS)})
    violations = ma.fields.List(ma.fields.Nested(ViolationSchema))


class FitSchema(Schema):
    fits = ma.fields.Boolean(
        allow_none=True, metadata={"description": "true when every verdict is fits or uncapped; null: unknown"}
    )
    more = ma.fields.Integer(
        allow_none=True,
        metadata={"description": "How many instances of it fit in the room left; null when nothing caps it."},
    )
    resources = ma.fields.Nested(FitResourcesSchema)
    podSecurity = ma.fields.Nested(
        PodSecuritySchema,
        metadata={"description": "What the definition breaks of the profile's Pod Security Standards level."},
    )
    cost = ma.fields.Nested(
        CostSchema,
        allow_none=True,
        metadata={"description": "Its memory, CPU and storage a month; null without prices, or where one is unknown."},
    )


class FitArgs(Schema):
    profile = ma.fields.String(
        metadata={"description": "The id of a profile the caller may read; omitted, the caller's default profile."}
    )
    target = Target(
        "Where it is deployed (default: the blueprint's own format): pod security is judged there (a Compose bind "
        "mount is the host's on `compose`, an emptyDir on `kubernetes`), and a Compose blueprint's named volumes are "
        "claims of 1Gi on `kubernetes`, counted as storage."
    )


RENDER_EXAMPLE = {"values": {"REPLICAS": 3}, "profile": "6740f1c2a9e3b1d2c3f4a5b6", "maximize": "REPLICAS"}


class RenderArgs(TargetSchema):
    values = ma.fields.Dict(
        keys=ma.fields.String(),
        values=ma.fields.Raw(allow_none=True),
        load_default=dict,
        metadata={"description": "A value per parameter name; omitted ones take their default (or are generated)."},
    )
    profile = ma.fields.String(metadata={"description": "The id of a profile the caller may read: the fit to it."})
    maximize = ma.fields.String(
        metadata={"description": "An integer parameter: the largest value at which the rendering fits `profile`."}
    )
    namespace = ma.fields.String(
        validate=DNS_LABEL,
        metadata={"description": "With `target: kubernetes`: the namespace written into every object."},
    )

    @ma.validates_schema
    def _namespace_needs_the_target(self, data, **kwargs):
        if "namespace" in data and data.get("target") != "kubernetes":
            raise ma.ValidationError("Needs `target: kubernetes`.", "namespace")

    @ma.validates_schema
    def _maximize_needs_a_profile(self, data, **kwargs):
        if "maximize" in data and "profile" not in data:
            raise ma.ValidationError("Needs `profile`: the most that fits which profile.", "maximize")


class NoteSchema(Schema):
    path = ma.fields.String(metadata={"description": "Where in the Compose file: `services.web.depends_on`."})
    outcome = ma.fields.String(metadata={"enum": ["dropped", "approximated"]})
    why = ma.fields.String()


class RenderSchema(Schema):
    yml = ma.fields.String(metadata={"description": "The definition filled in, ready to deploy."})
    values = ma.fields.Dict(
        keys=ma.fields.String(),
        values=ma.fields.Raw(allow_none=True),
        metadata={
            "description": "Every parameter's value used; writeOnly and generated (x-generate) ones as null (they "
            "are only in yml)."
        },
    )
    requirements = ma.fields.Nested(RequirementsSchema, allow_none=True)
    routes = Routes("Where it answers once deployed: the hosts it ends with, a profile's domain's too.")
    fit = ma.fields.Nested(FitSchema, allow_none=True)
    cost = ma.fields.Nested(
        CostSchema,
        allow_none=True,
        metadata={"description": "The fit's cost; without a profile, at the operator's prices alone."},
    )
    maximized = ma.fields.Dict(
        keys=ma.fields.String(),
        values=ma.fields.Integer(allow_none=True),
        metadata={"description": "With `maximize`: the largest value that fits, or null when none does."},
    )
    notes = ma.fields.List(
        ma.fields.Nested(NoteSchema),
        metadata={
            "description": "With `target: kubernetes`: each field of the Compose file not carried over exactly; on "
            "either target, each optional value left empty (`values.NAME`)."
        },
    )
