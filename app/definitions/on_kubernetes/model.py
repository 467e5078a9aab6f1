"""What the conversion reads and is told, typed: the `Cluster` a render writes for (one object
from the request through an admission to the writer) and the `Service` each Compose service is
loaded as, before anything is written. Kompose reads the same way: a loader, one object per
service, a transformer with its options."""

from collections.abc import Mapping
from dataclasses import dataclass, field


@dataclass(frozen=True)
class Cluster:
    """Where and how a render for a cluster writes."""

    instance: str  # the name its objects are labelled with
    namespace: str | None = None  # where they are written (None: wherever they are applied)
    volume_size: str = "1Gi"  # a claim's size, unless `volume_sizes` names its volume
    volume_sizes: Mapping[str, str] = field(default_factory=dict)
    routes: str = "ingress"  # what routes are written as: an Ingress, Gateway API HTTPRoutes, or "none"
    conventions: Mapping = field(default_factory=dict)  # the profile's `cluster`: classes, pull secrets, issuer
    ingress_namespaces: tuple[str, ...] = ()  # where the ingress controller (and the Gateway) run: admitted to routes
    wait_image: str = "busybox:1.36"  # what a `wait-for-<service>` init container runs
    wait_limits: Mapping = field(default_factory=lambda: {"memory": "16Mi", "cpu": "10m"})  # its limits
    # What the render adds once it has its values
    values: Mapping[str, str] = field(default_factory=dict)  # every value, as text
    secret_texts: tuple[str, ...] = ()  # the values of its secret parameters
    pod_security: str | None = None  # the level its pods run at (restricted writes what it requires)
    # An instance's: the Namespace, quota and LimitRange that hold it written before its objects,
    # labelled with the team that owns it (None: a user)
    holds_namespace: bool = False
    team: str | None = None


@dataclass(frozen=True)
class Service:
    """One service of the project, as loaded: what the writer makes a workload and a Service of."""

    name: str  # its Compose name
    spec: dict  # the service as Compose reads it
    entry: dict | None  # what measuring counted of it (requirements' perContainer), None when nothing
    replicas: int  # the replicas counted
    awaited: bool  # another waits for it to complete: a Job, not a Deployment
    named: bool  # another names it (depends_on, links): it needs a name that resolves

    @property
    def where(self):
        """Its path in the file, as notes and problems name it."""
        return ["services", self.name]
