"""An environment's body: its kind, where it is reached and how, how often it is observed, and
what was observed there (read-only)."""

import marshmallow as ma

from app.http.paging import PageArgs
from app.model.accounts import Can
from app.model.fields import DNS_LABEL, Id, Pattern, Reported, StrictBoolean, Timestamp
from app.model.schemas import ProxySchema, Schema

KINDS = ("docker", "git")
REF = Pattern(
    r"(?!-)(?!.*\.\.)(?!.*//)[A-Za-z0-9._/-]{1,200}(?<![./])",
    error="A branch: letters, digits, . _ / -, without `..` or a leading `-`.",
)
PEM = ma.validate.Length(1, 65536)


ADDRESS = ma.validate.Length(1, 2000)


def _optional(validate, description):
    """A text that may be left out (null)."""
    return ma.fields.String(
        allow_none=True, load_default=None, validate=validate, metadata={"description": description}
    )


def _secret(most):
    """A credential: written, never shown (`has*` says whether one is kept)."""
    return ma.fields.String(
        load_only=True, allow_none=True, validate=ma.validate.Length(1, most), metadata={"writeOnly": True}
    )


def _kept(sealed):
    """Whether a credential is kept, shown where the environment is shown whole (to admins)."""
    return ma.fields.Function(
        lambda doc: doc.get(sealed) is not None if "endpoint" in doc else ma.missing, dump_only=True
    )


class TlsSchema(Schema):
    ca = ma.fields.String(
        required=True,
        validate=PEM,
        metadata={"description": "The CA the engine's certificate is checked against (PEM)."},
    )
    cert = ma.fields.String(required=True, validate=PEM, metadata={"description": "The client certificate (PEM)."})
    key = ma.fields.String(required=True, validate=PEM, metadata={"description": "The client key (PEM)."})


class EngineSchema(Schema):
    version = ma.fields.String()
    cpus = ma.fields.Integer()
    memoryBytes = ma.fields.Integer()


class StateSchema(Schema):
    at = Timestamp()
    reachable = ma.fields.Boolean()
    error = ma.fields.String(allow_none=True)
    engine = ma.fields.Nested(EngineSchema, allow_none=True)
    commit = ma.fields.String(allow_none=True, metadata={"description": "git: the branch's head observed."})
    instances = ma.fields.Dict(keys=ma.fields.String(), values=ma.fields.Integer())
    unmanaged = ma.fields.List(ma.fields.Dict())


class EnvironmentSchema(Schema):
    id = Id()
    name = ma.fields.String(required=True, validate=DNS_LABEL, metadata={"description": "Unique; never changes."})
    kind = ma.fields.String(
        required=True,
        validate=ma.validate.OneOf(KINDS),
        metadata={
            "description": "`docker` (a Docker Engine) or `git` (a repository Argo CD or Flux follows); never changes."
        },
    )
    endpoint = _optional(
        ADDRESS,
        "docker: unix:///path (ENVIRONMENT_SOCKETS), tcp://HOST:PORT (with `tls`) or ssh://USER@HOST[:PORT] (with "
        "`deployKey`).",
    )
    tls = ma.fields.Nested(TlsSchema, load_only=True, allow_none=True, metadata={"writeOnly": True})
    url = _optional(ADDRESS, "git: https:// or ssh:// to a host ENVIRONMENT_HOSTS names.")
    ref = _optional(REF, "git: a branch (default: the remote's HEAD).")
    path = ma.fields.String(
        load_default="",
        validate=ma.validate.Length(max=1000),
        metadata={"description": "git: the folder the environment owns (default: the root)."},
    )
    token = _secret(4096)
    deployKey = _secret(16384)
    knownHosts = _optional(ma.validate.Length(1, 65536), "ssh host keys trusted here (else SOURCE_KNOWN_HOSTS).")
    interval = ma.fields.Integer(
        strict=True,
        load_default=60,
        validate=ma.validate.Range(15, 3600),
        metadata={"description": "Seconds between two observations."},
    )
    heal = StrictBoolean(
        load_default=False,
        metadata={"description": "Deliver a drifted or missing instance again at the next observation."},
    )
    proxy = ma.fields.Nested(
        ProxySchema, allow_none=True, load_default=None, metadata={"description": "docker: its Traefik."}
    )
    hasTls = _kept("sealedTls")
    hasToken = _kept("sealedToken")
    hasDeployKey = _kept("sealedDeployKey")
    state = Reported(StateSchema)
    owner = ma.fields.String(dump_only=True, metadata={"description": "The admin who registered it."})
    can = Can("change", "delete")
    createdAt = Timestamp()
    updatedAt = Timestamp()
    updatedBy = ma.fields.String(dump_only=True)


class EnvironmentDraftSchema(EnvironmentSchema):
    id = Id(draft=True)


class EnvironmentQuery(PageArgs):
    name = ma.fields.String(validate=DNS_LABEL, metadata={"description": "Exactly this name."})
