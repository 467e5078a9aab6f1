"""The base of every schema (unknown fields refused, read-only ones named as such), the query
parameter every write takes, and the fields blueprints, instances and profiles share."""

import marshmallow as ma

from app.model.fields import KubernetesSize, Pattern, QueryBoolean, StrictBoolean


class Schema(ma.Schema):
    class Meta:
        unknown = ma.RAISE

    def get_attribute(self, obj, attr, default):
        """A stored document's field read as a key of its dict. marshmallow's own reading tries an
        attribute after a missing key (a dict's `values` method for a missing `values`) and costs
        a page of 50 blueprints a twentieth of its CPU."""
        if type(obj) is dict and "." not in attr:
            return obj.get(attr, default)
        return super().get_attribute(obj, attr, default)

    def handle_error(self, error, data, *, many, **kwargs):
        read_only = {f.data_key or name for name, f in self.fields.items() if f.dump_only}
        for name in read_only & set(error.messages):
            error.messages[name] = ["Read-only field."]


class WriteArgs(Schema):
    dryRun = QueryBoolean(
        load_default=False,
        metadata={
            "description": "true: run every check and answer 200 with what the write would store; store nothing."
        },
    )


# flask-smorest's `doc(parameters=...)` replaces the parameters `arguments` documents, so the
# writes that also document a header list this among theirs (apispec expands it into fields).
WRITE_PARAMETERS = {"in": "query", "schema": WriteArgs}


class SourceSchema(Schema):
    format = ma.fields.String()
    name = ma.fields.String()
    key = ma.fields.String()
    rev = ma.fields.Integer(
        metadata={"description": "The revision the last import wrote: a later one changed here makes a `conflict`."}
    )
    gone = ma.fields.Boolean(metadata={"description": "A sync found its template no longer in the source."})
    template = ma.fields.Dict(
        metadata={
            "description": "openshift: the template's displayName, iconClass, message and labels, which its "
            "export gives back."
        }
    )


class Detached(ma.fields.Nested):
    """`source` in a change: null alone, which detaches a resource from the import (or sync) that
    made it, so that the next one leaves it be (a conflict it was in ends)."""

    def _deserialize(self, value, attr, data, **kwargs):
        raise ma.ValidationError("Only null: it detaches this from the import that made it.")


def Source():
    """Where an import found a resource (blueprints and profiles alike); null otherwise. A change
    may send null, which detaches it."""
    return Detached(
        SourceSchema,
        allow_none=True,
        load_default=ma.missing,
        dump_default=None,
        metadata={
            "description": "Where an import found it (its format, the import's source, its key); else null. "
            "A change may set it to null: the import no longer updates it."
        },
    )


class HeadroomAmountsSchema(Schema):
    """A profile's `cluster.headroom` as counted: pods, bytes and millicores."""

    pods = ma.fields.Integer()
    memoryBytes = ma.fields.Integer()
    cpuMillis = ma.fields.Integer()


class RouteSchema(Schema):
    """Which service answers where."""

    service = ma.fields.String(metadata={"description": "The Compose service that answers."})
    port = ma.fields.Integer(metadata={"description": "Its container port."})
    host = ma.fields.String(
        allow_none=True, metadata={"description": "null: not known until rendered, or the profile's domain's."}
    )
    path = ma.fields.String(metadata={"description": "A path prefix."})
    tls = ma.fields.Boolean()
    unheld = ma.fields.String(
        metadata={
            "description": "Where a Traefik rule names what no hold keeps to one tenant (HostRegexp, HostSNI...): "
            "why; an admission that writes it is refused."
        }
    )


def Routes(description):
    """A document's routes, read-only: those its requirements keep (`requirements.routes`)."""
    return ma.fields.List(
        ma.fields.Nested(RouteSchema),
        attribute="requirements.routes",
        dump_only=True,
        dump_default=list,
        metadata={"description": description},
    )


class RequirementsSchema(Schema):
    """What a definition's containers need, summed; null for a type with no known format."""

    memoryBytes = ma.fields.Integer()
    cpuMillis = ma.fields.Integer()
    containers = ma.fields.Integer()
    storageBytes = ma.fields.Integer()
    unbounded = ma.fields.List(
        ma.fields.String(),
        metadata={"description": "Sorted: each container that declares no amount of memory (or cpu)."},
    )
    unresolved = ma.fields.List(
        ma.fields.String(),
        dump_default=list,
        metadata={"description": "Sorted: undeclared variables without a default that stand in an amount."},
    )
    headroom = ma.fields.Nested(
        HeadroomAmountsSchema,
        metadata={
            "description": "On a cluster: the profile's headroom, counted in the amounts above (each pod a container)."
        },
    )


class ObservedUsageSchema(Schema):
    """What running containers may take as an engine holds them (a container without a limit: the
    engine's whole memory or cpus)."""

    containers = ma.fields.Integer(metadata={"description": "Running."})
    memoryBytes = ma.fields.Integer()
    cpuMillis = ma.fields.Integer()


TARGETS = ("compose", "kubernetes")


def Target(description):
    """`compose` or `kubernetes`: what a definition is rendered for or judged on."""
    return ma.fields.String(
        validate=ma.validate.OneOf(TARGETS), metadata={"enum": list(TARGETS), "description": description}
    )


class CostSchema(Schema):
    """What it costs a month at the profile's prices (the operator's PRICES, a profile's own)."""

    monthly = ma.fields.Float(metadata={"description": "Rounded to cents."})
    currency = ma.fields.String(metadata={"description": "PRICES' currency, such as EUR."})


class TargetSchema(Schema):
    """What a Compose blueprint is rendered for (a render's, an instance's): `kubernetes` converts
    it into the objects a cluster runs, each named volume a claim of the size asked for."""

    target = Target(
        "What to render for (default: the blueprint's own format): `kubernetes` converts a Compose blueprint into "
        "the objects a cluster runs, naming in `notes` what does not carry over."
    )
    volumeSize = KubernetesSize(
        load_only=True,
        metadata={"description": "With `target: kubernetes`: the size of each named volume's claim (default 1Gi)."},
    )
    volumeSizes = ma.fields.Dict(
        keys=ma.fields.String(validate=ma.validate.Length(max=256)),
        values=KubernetesSize(),
        validate=ma.validate.Length(max=256),
        load_only=True,
        metadata={"description": "With `target: kubernetes`: a claim's size per volume, by its name in the file."},
    )

    routes = ma.fields.String(
        validate=ma.validate.OneOf(("ingress", "gateway", "none")),
        metadata={
            "enum": ["ingress", "gateway", "none"],
            "description": "With `target: kubernetes`: routes as an Ingress (default), Gateway API HTTPRoutes "
            "attached to the profile's `cluster.gateway`, or none.",
        },
    )

    @ma.validates_schema
    def _sizes_need_the_target(self, data, **kwargs):
        for option in ("volumeSize", "volumeSizes", "routes"):
            if option in data and data.get("target") != "kubernetes":
                raise ma.ValidationError("Needs `target: kubernetes`.", option)


NETWORK = Pattern(r"[a-zA-Z0-9][a-zA-Z0-9_.-]{0,254}", error="Must be a Docker network's name.")
TRAEFIK_NAME = Pattern(r"[A-Za-z0-9][A-Za-z0-9_-]{0,63}", error="Must be a name as Traefik's configuration gives it.")


class ProxySchema(Schema):
    """The Traefik in front of a Docker Engine: what the Traefik labels of a render delivered there name."""

    network = ma.fields.String(
        required=True,
        validate=NETWORK,
        metadata={"description": "The external network Traefik reaches the routed services on."},
    )
    entrypoints = ma.fields.List(
        ma.fields.String(validate=TRAEFIK_NAME),
        load_default=list,
        validate=ma.validate.Length(max=16),
        metadata={"description": "The entrypoints every router names (`websecure`)."},
    )
    certResolver = ma.fields.String(
        allow_none=True,
        load_default=None,
        validate=TRAEFIK_NAME,
        metadata={"description": "The certificate resolver a router with TLS names (`letsencrypt`)."},
    )


class ProxyConventionsSchema(ProxySchema):
    """A team's: as an environment's (which wins where both say), and whether routed ports stay published."""

    network = ma.fields.String(
        validate=NETWORK,
        metadata={"description": "The external network Traefik reaches the routed services on (admins set it)."},
    )
    publish = StrictBoolean(
        metadata={"description": "false: a routed service's routed ports are not published on the host."}
    )
