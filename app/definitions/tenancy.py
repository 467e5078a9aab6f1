"""An instance on a cluster that many teams share: the namespace it lives in (never one the
cluster keeps for itself), what its stream may hold there (the workloads the budget counts and the
namespaced kinds that run nothing; nothing cluster-scoped, no quota of its own, nothing that could
loosen the quota it is held to), and the Namespace, ResourceQuota and LimitRange that hold it to
what was admitted and to its profile's pod security level."""

import fnmatch

from app.definitions import kubernetes, pod_security
from app.definitions.on_kubernetes import budget, isolation
from app.definitions.on_kubernetes.names import metadata
from app.definitions.schemas import listed, mapping
from app.errors import Invalid

RESERVED = ("default", "kube-*", "openshift-*")
INSTANCE = "app.kubernetes.io/instance"
PART_OF = "app.kubernetes.io/part-of"  # the team that owns the instance, on its Namespace
RBAC = "rbac.authorization.k8s.io"
# (API group, kind) an instance may hold beside the workloads the budget measures
ALWAYS_ALLOWED = frozenset(
    {
        ("", "Service"),
        ("", "ConfigMap"),
        ("", "Secret"),
        ("", "PersistentVolumeClaim"),
        ("", "ServiceAccount"),
        (RBAC, "Role"),
        (RBAC, "RoleBinding"),
        ("networking.k8s.io", "Ingress"),
        ("networking.k8s.io", "NetworkPolicy"),
        ("gateway.networking.k8s.io", "HTTPRoute"),
        ("policy", "PodDisruptionBudget"),
        ("autoscaling", "HorizontalPodAutoscaler"),
    }
)
# Kinds of Kubernetes' own API that are not namespaced (and OpenShift's most met)
CLUSTER_SCOPED = frozenset(
    {
        "APIService",
        "CSIDriver",
        "CSINode",
        "CertificateSigningRequest",
        "ClusterRole",
        "ClusterRoleBinding",
        "ClusterTrustBundle",
        "ComponentStatus",
        "CustomResourceDefinition",
        "DeviceClass",
        "FlowSchema",
        "IPAddress",
        "IngressClass",
        "MutatingAdmissionPolicy",
        "MutatingAdmissionPolicyBinding",
        "MutatingWebhookConfiguration",
        "Namespace",
        "Node",
        "PersistentVolume",
        "PodSecurityPolicy",
        "PriorityClass",
        "PriorityLevelConfiguration",
        "Project",
        "ResourceSlice",
        "RuntimeClass",
        "SecurityContextConstraints",
        "ServiceCIDR",
        "StorageClass",
        "StorageVersion",
        "StorageVersionMigration",
        "ValidatingAdmissionPolicy",
        "ValidatingAdmissionPolicyBinding",
        "ValidatingWebhookConfiguration",
        "VolumeAttachment",
        "VolumeAttributesClass",
    }
)
# Ingress annotations a tenant's own Ingress may carry: ones that shape its own routes. Any other
# (ingress-nginx's `*-snippet`, `auth-url`, `auth-signin`, `use-regex`...) writes the controller's
# configuration, shared by every tenant (CVE-2021-25742, CVE-2025-1974), or escapes the hold of a
# path prefix, and is refused by name (docs/security.md, "Routes").
NGINX = "nginx.ingress.kubernetes.io/"
SAFE_ANNOTATIONS = frozenset(
    {
        *(
            NGINX + name
            for name in (
                "rewrite-target",
                "ssl-redirect",
                "force-ssl-redirect",
                "proxy-body-size",
                "proxy-connect-timeout",
                "proxy-read-timeout",
                "proxy-send-timeout",
                "proxy-next-upstream-timeout",
                "backend-protocol",
                "app-root",
                "enable-cors",
                "cors-allow-origin",
                "cors-allow-methods",
                "cors-allow-headers",
                "cors-allow-credentials",
                "cors-max-age",
                "limit-rps",
                "limit-connections",
                "affinity",
                "session-cookie-name",
            )
        ),
        "cert-manager.io/cluster-issuer",
        "cert-manager.io/issuer",
        "traefik.ingress.kubernetes.io/router.entrypoints",
        "traefik.ingress.kubernetes.io/router.tls",
    }
)
BOUND_ROLES = frozenset({"view", "edit", "admin"})  # cluster roles that cannot write a quota
READING = frozenset({"get", "list", "watch"})
GUARDED = frozenset({"resourcequotas", "limitranges", "namespaces", "*"})


def reserved(namespace, extra=()):
    """Whether the cluster keeps `namespace` for itself (`default`, `kube-*`, `openshift-*`, and
    the operator's `extra` patterns, `*` a suffix wildcard)."""
    return any(fnmatch.fnmatchcase(namespace, pattern) for pattern in (*RESERVED, *extra))


def kind_key(manifest):
    """`group/Kind` as `allowKinds` names it (`v1/Kind` for the core API)."""
    group, kind = _group_kind(manifest)
    return f"{group or 'v1'}/{kind}"


def hold(documents, namespace, allow_kinds, notes, gateway=None):
    """The stream of a Kubernetes blueprint's instance in its own namespace: every object written
    into it (one naming another is a 422), every kind one the budget measures or the profile
    allows, its routing objects held to the lines of those the service writes (annotations,
    references to other namespaces but the profile's `gateway`, the isolation policy's name), and
    each container that declares only requests given limits of the same amounts (a note), so that
    the namespace's `limits.*` quota admits its pods. Problems name the document."""
    found, objects = [], [doc for doc in documents if doc is not None]
    counted = _replicas(objects)
    for index, manifest in enumerate(objects):
        label = f"yml.{index}: {manifest['kind']}/{manifest['metadata']['name']}"
        problem = _refused(manifest, allow_kinds, counted) or _routing(manifest, namespace, gateway)
        metadata = manifest["metadata"]
        if problem is None and metadata.get("namespace") not in (None, namespace):
            problem = f"names the namespace {str(metadata['namespace'])[:63]!r}: an instance's objects live in its own"
        if problem is not None:
            found.append(f"{label} {problem}.")
            continue
        metadata["namespace"] = namespace
        _limits_from_requests(manifest, label.partition(": ")[0], notes)
    if found:
        raise Invalid({"yml": found[:100]})
    return objects


def _group_kind(manifest):
    return kubernetes.group_of(str(manifest.get("apiVersion", ""))), manifest.get("kind")


def _refused(manifest, allow_kinds, counted):
    """Why an instance may not hold the object, or None."""
    group, kind = _group_kind(manifest)
    allowed = kind_key(manifest) in allow_kinds
    if kind in CLUSTER_SCOPED and (kubernetes.built_in(group) or group.endswith(".openshift.io")):
        return "is cluster-scoped: an instance holds only what lives in its own namespace"
    if kind in ("ResourceQuota", "LimitRange") and group == "":
        return "is the namespace's budget, which the service writes from what it admitted"
    if (kind, group) == ("DaemonSet", "apps"):
        return (
            None
            if allowed
            else "runs one pod per node, which the budget cannot count (the profile's allowKinds may name "
            "apps/DaemonSet)"
        )
    if (kind, group) in kubernetes.WORKLOADS:
        return None
    if (group, kind) not in ALWAYS_ALLOWED:
        return (
            None
            if allowed
            else f"is a kind the service does not measure (the profile's allowKinds may name {kind_key(manifest)})"
        )
    return _reaching_out(manifest, kind, counted)


def _reaching_out(manifest, kind, counted):
    """Why an object of a kind an instance may hold reaches past its namespace or its budget, or
    None."""
    spec = mapping(manifest.get("spec"))
    if kind == "PersistentVolumeClaim" and spec.get("volumeName") not in (None, ""):
        return "binds a volume by name (spec.volumeName), which may hold another namespace's data"
    if kind == "Service" and spec.get("type") in ("NodePort", "ExternalName"):
        return f"is of type {spec['type']}: it reaches beyond the namespace (a node's ports, another name)"
    if kind == "Service" and spec.get("externalIPs"):
        return "takes externalIPs: it would receive the cluster's traffic to those addresses (CVE-2020-8554)"
    if kind == "HorizontalPodAutoscaler":
        target = mapping(spec.get("scaleTargetRef"))
        most = counted.get((target.get("kind"), target.get("name")))
        if most is None or not isinstance(spec.get("maxReplicas"), int) or spec["maxReplicas"] > most:
            return "scales beyond the replicas counted: its maxReplicas must be at most its target's replicas"
    role = mapping(manifest.get("roleRef"))
    if kind == "RoleBinding" and role.get("kind") == "ClusterRole" and role.get("name") not in BOUND_ROLES:
        return "binds a cluster role other than view, edit or admin, which could change the namespace's quota"
    if kind == "Role":
        for rule in listed(manifest.get("rules")):
            rule = mapping(rule)
            if (
                GUARDED & {str(one) for one in listed(rule.get("resources"))}
                and set(map(str, listed(rule.get("verbs")))) - READING
            ):
                return "may write resource quotas, limit ranges or namespaces: the budget it is held to"
    return None


def _routing(manifest, namespace, gateway):
    """Why a routing object of a Kubernetes blueprint reaches past the instance's own routes, or
    None: an Ingress annotation that writes the controller's configuration, an HTTPRoute attached
    to or routing into another namespace (the profile's Gateway aside), a NetworkPolicy that takes
    the name of the one the service isolates the namespace with."""
    group, kind = _group_kind(manifest)
    spec = mapping(manifest.get("spec"))
    if (group, kind) == ("networking.k8s.io", "Ingress"):
        annotations = mapping(manifest["metadata"].get("annotations"))
        unsafe = sorted(str(key)[:80] for key in annotations if key not in SAFE_ANNOTATIONS)
        if unsafe:
            return (
                f"carries the annotation {unsafe[0]!r}, which writes the ingress controller's configuration "
                f"(an Ingress may carry only {', '.join(sorted(SAFE_ANNOTATIONS))})"
            )
    if (group, kind) == ("gateway.networking.k8s.io", "HTTPRoute"):
        own = (None, namespace)
        attached = gateway.partition("/") if gateway else None
        for parent in map(mapping, listed(spec.get("parentRefs"))):
            if parent.get("namespace") not in own and (parent.get("namespace"), "/", parent.get("name")) != attached:
                where = str(parent.get("namespace"))[:63]
                return f"attaches to {where!r}: only to the profile's gateway, or in its own namespace"
        for rule in map(mapping, listed(spec.get("rules"))):
            mirrors = [
                mapping(mapping(one).get("requestMirror")).get("backendRef") for one in listed(rule.get("filters"))
            ]
            for backend in map(mapping, [*listed(rule.get("backendRefs")), *filter(None, mirrors)]):
                if backend.get("namespace") not in own:
                    return (
                        f"routes into {str(backend['namespace'])[:63]!r}: an instance's routes reach its own namespace"
                    )
    if (group, kind) == ("networking.k8s.io", "NetworkPolicy") and manifest["metadata"][
        "name"
    ] == isolation.policy_name(namespace):
        return "takes the name of the policy that isolates the namespace, which the service writes"
    return None


def _replicas(objects):
    """{(kind, name): the replicas counted} of each scalable workload of the stream."""
    counted = {}
    for manifest in objects:
        group, kind = _group_kind(manifest)
        paths = kubernetes.WORKLOADS.get((kind, group))
        if paths and paths[0] is not None and paths[0][-1] == "replicas":
            replicas = mapping(manifest.get("spec")).get("replicas", 1)
            counted[(kind, manifest["metadata"]["name"])] = replicas if isinstance(replicas, int) else 1
    return counted


def _limits_from_requests(manifest, label, notes):
    group, kind = _group_kind(manifest)
    paths = kubernetes.WORKLOADS.get((kind, group))
    if paths is None:
        return
    spec = manifest
    for key in paths[1]:
        spec = mapping(mapping(spec).get(key))
    for index, container in enumerate(listed(spec.get("containers"))):
        resources = mapping(mapping(container).get("resources"))
        requests, limits = mapping(resources.get("requests")), mapping(resources.get("limits"))
        for resource in ("memory", "cpu"):
            if resource in requests and resource not in limits:
                resources.setdefault("limits", {})[resource] = requests[resource]
                notes.approximated(
                    [label, *paths[1], "containers", index, "resources", "limits", resource],
                    "only a request was declared: the limit is written equal to it, as counted, so that the "
                    "namespace's quota admits the pod",
                )


def namespace_objects(namespace, requirements, limits, team=None):
    """The objects that put an instance in a namespace of its own, held to what it was admitted
    with: the Namespace (its pod security level enforced there too; labelled with the `team` that
    owns it, where one does), a ResourceQuota of its requirements and its profile's LimitRange."""
    labels = {INSTANCE: namespace}
    level = limits.get("podSecurity", "privileged")
    namespace_labels = {
        **labels,
        **({PART_OF: team} if team else {}),
        "pod-security.kubernetes.io/enforce": level,
        "pod-security.kubernetes.io/enforce-version": pod_security.VERSION,
    }
    named = metadata(namespace, labels, namespace)
    objects = [
        {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": namespace, "labels": namespace_labels}},
        budget.resource_quota(named, requirements),
    ]
    if (limit_range := budget.limit_range(named, limits)) is not None:
        objects.append(limit_range)
    return objects
