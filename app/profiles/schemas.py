"""The profile body, its `limits` (the caps normalized), and the profile list's filters."""

import marshmallow as ma
from flask import current_app

from app.definitions import pod_security
from app.http.crud import EchoedId
from app.http.paging import ListArgs
from app.model import dns, prices, quantities
from app.model.accounts import Can, EntitledTeams, EntitledUsers, Owner
from app.model.fields import DNS_LABEL, Cap, Id, Name, Pattern, QueryBoolean, StrictBoolean, Timestamp
from app.model.schemas import ObservedUsageSchema, ProxyConventionsSchema, Schema, Source
from app.profiles import usage

KIND = r"[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?/[A-Za-z][A-Za-z0-9]{0,62}"


class PerContainerSchema(Schema):
    """What one container counts (defaults) or may declare (maximum), in the caps' grammars."""

    memory = Cap(quantities.MEMORY, "256Mi")
    cpu = Cap(quantities.CPU, "250m")

    @ma.post_load
    def _both_members(self, data, **kwargs):
        """The object is replaced whole, in a PATCH too: a member not sent is unset."""
        return {"memory": None, "cpu": None, **data}


class PerContainerLimitsSchema(Schema):
    memoryBytes = ma.fields.Integer(allow_none=True)
    cpuMillis = ma.fields.Integer(allow_none=True)


def _object_name(description):
    return ma.fields.String(
        validate=Pattern(dns.SUBDOMAIN.regex.pattern, error="Must be a Kubernetes object name (a DNS subdomain)."),
        metadata={"description": description},
    )


class HeadroomSchema(Schema):
    """Room in an instance's namespace for the pods the cluster runs there itself."""

    pods = ma.fields.Integer(
        strict=True,
        validate=ma.validate.Range(0, 100),
        metadata={"description": "Pods beside the instance's own (cert-manager's HTTP-01 solver, a debugging pod)."},
    )
    memory = Cap(quantities.MEMORY, "64Mi")
    cpu = Cap(quantities.CPU, "100m")


class ClusterSchema(Schema):
    """A team's cluster conventions, each optional, written into what renders for its cluster."""

    storageClass = _object_name("The StorageClass of every claim.")
    imagePullSecrets = ma.fields.List(
        _object_name("A Secret in the instance's namespace."),
        validate=ma.validate.Length(max=20),
        metadata={"description": "Secrets every pod pulls its images with."},
    )
    ingressClass = _object_name("The IngressClass of an instance's Ingress (none: the cluster's default).")
    gateway = ma.fields.String(
        validate=Pattern(f"{dns.LABEL.regex.pattern}/{dns.SUBDOMAIN.regex.pattern}", error="Must be `namespace/name`."),
        metadata={"description": "The Gateway (`namespace/name`) an HTTPRoute attaches to."},
    )
    tlsIssuer = _object_name("The cert-manager ClusterIssuer that certifies an Ingress's hosts.")
    domain = ma.fields.String(
        validate=Pattern(dns.SUBDOMAIN.regex.pattern, error="Must be a DNS name."),
        metadata={"description": "A route without a host answers on `<instance>.<domain>`."},
    )
    proxy = ma.fields.Nested(
        ProxyConventionsSchema,
        metadata={"description": "The Traefik of a Docker host: what a render for Docker Compose's labels name."},
    )
    headroom = ma.fields.Nested(
        HeadroomSchema,
        metadata={"description": "Added to each instance's namespace quota and counted in its requirements."},
    )


def _price(description):
    return ma.fields.Float(
        allow_none=True,
        validate=ma.validate.Range(0, float(prices.MOST)),
        metadata={"description": f"{description} a month, in PRICES' currency; unset: PRICES' price."},
    )


class PricesSchema(Schema):
    """A profile's own prices, where they differ from the operator's sheet (PRICES)."""

    cpu = _price("A CPU")
    memoryGiB = _price("A GiB of memory")
    storageGiB = _price("A GiB of storage")


class LimitsSchema(Schema):
    memoryBytes = ma.fields.Integer(allow_none=True)
    cpuMillis = ma.fields.Integer(allow_none=True)
    containers = ma.fields.Integer(allow_none=True)
    storageBytes = ma.fields.Integer(allow_none=True)
    containerDefaults = ma.fields.Nested(PerContainerLimitsSchema)
    containerMax = ma.fields.Nested(PerContainerLimitsSchema)


class UsageSchema(Schema):
    memoryBytes = ma.fields.Integer()
    cpuMillis = ma.fields.Integer()
    containers = ma.fields.Integer()
    storageBytes = ma.fields.Integer()
    instances = ma.fields.Integer()
    monthly = ma.fields.Float(
        allow_none=True,
        metadata={"description": "What the usage costs a month at the profile's prices (null without PRICES)."},
    )
    currency = ma.fields.String(allow_none=True, metadata={"description": "PRICES' currency (null without it)."})
    observed = ma.fields.Nested(
        ObservedUsageSchema,
        allow_none=True,
        metadata={
            "description": "What its instances hold where they run, summed over its environments' last "
            "observations (null: none observed); what was admitted alone decides admissions."
        },
    )


class ProfileSchema(EchoedId):
    id = Id()
    name = Name()
    defaultProfile = StrictBoolean(load_default=False)
    memoryCap = Cap(quantities.MEMORY, "512Mi")
    cpuCap = Cap(quantities.CPU, "500m")
    containerCap = Cap(quantities.CONTAINERS, "10")
    storageCap = Cap(quantities.STORAGE, "20Gi")
    containerDefaults = ma.fields.Nested(
        PerContainerSchema,
        allow_none=True,
        load_default=None,
        metadata={
            "description": "What a container that declares no memory (or cpu) counts in a fit, and is "
            "given in a render, as a Kubernetes LimitRange's `default`."
        },
    )
    containerMax = ma.fields.Nested(
        PerContainerSchema,
        allow_none=True,
        load_default=None,
        metadata={"description": "The most one container may declare (or be defaulted to), as a LimitRange's `max`."},
    )
    entitledUsers = EntitledUsers(
        load_default=list,
        metadata={"description": "Users who may read the profile and deploy against it, beside its owner."},
    )
    entitledTeams = EntitledTeams(
        load_default=list,
        dump_default=list,
        metadata={"description": "Teams whose members and maintainers deploy against the profile, viewers read it."},
    )
    podSecurity = ma.fields.String(
        load_default=pod_security.BASELINE,
        validate=ma.validate.OneOf(pod_security.LEVELS),
        metadata={
            "enum": list(pod_security.LEVELS),
            "description": f"The Pod Security Standards level ({pod_security.VERSION}) every render, fit and admission "
            "against it holds to; only admins set `privileged`.",
        },
    )
    allowKinds = ma.fields.List(
        ma.fields.String(validate=Pattern(KIND, error="Must be `group/Kind` (`v1/Kind` for the core API).")),
        load_default=list,
        validate=ma.validate.Length(max=100),
        metadata={
            "description": "Kinds the service cannot measure (custom resources, or apps/DaemonSet) that its "
            "instances may hold, as `group/Kind`; only admins set them."
        },
    )
    environments = ma.fields.List(
        ma.fields.String(validate=DNS_LABEL),
        load_default=list,
        validate=ma.validate.Length(max=100),
        metadata={"description": "The environments its instances may be delivered to, by name; only admins set them."},
    )
    prices = ma.fields.Nested(
        PricesSchema,
        allow_none=True,
        load_default=None,
        dump_default=None,
        metadata={"description": "Prices that differ from the operator's (PRICES), each a month: a cost's."},
    )
    cluster = ma.fields.Nested(
        ClusterSchema,
        allow_none=True,
        load_default=None,
        metadata={"description": "The team's cluster conventions: classes, pull secrets, Gateway, TLS issuer, domain."},
    )
    limits = ma.fields.Nested(LimitsSchema, dump_only=True)
    usage = ma.fields.Nested(
        UsageSchema, dump_only=True, metadata={"description": "What its instances use: their requirements, summed."}
    )
    source = Source()
    owner = Owner()
    can = Can("change", "delete", "deploy")
    createdAt = Timestamp()
    updatedAt = Timestamp()

    @ma.pre_dump
    def _add_limits(self, doc, **kwargs):
        """`limits`: the caps as numbers; what the usage costs."""
        found = {**doc, "limits": quantities.limits(doc)}
        if "usage" in doc:
            spent = prices.cost(doc["usage"], prices.of_profile(doc, current_app.config["PRICES"]))
            found["usage"] = {
                **doc["usage"],
                "observed": usage.observed(doc.get("observed")),
                "monthly": spent and spent["monthly"],
                "currency": spent and spent["currency"],
            }
        return found

    @ma.validates("prices")
    def _a_sheet_to_differ_from(self, value, **kwargs):
        if value is not None and prices.sheet(current_app.config["PRICES"]) is None:
            raise ma.ValidationError("The operator has set no PRICES: there is no currency to price in.")


class ProfileDraftSchema(ProfileSchema):
    id = Id(draft=True)


class ProfileQuery(ListArgs):
    defaultProfile = QueryBoolean()
    fits = ma.fields.String(metadata={"description": "Only profiles this blueprint (an id) fits."})
