"""What reaches an instance's pods on a cluster, as Compose's networks keep services apart: a
NetworkPolicy per group of services that share the same networks (Compose's implicit `default`
network included) admitting only the instance's pods on a network they share, and one admitting
the ingress controller's namespace (and the Gateway's) to the services routes reach."""

from app.definitions.on_kubernetes.names import label, metadata
from app.definitions.schemas import listed, mapping

NAMESPACE_NAME = "kubernetes.io/metadata.name"  # the label Kubernetes gives every namespace


def networks_of(spec):
    """The Compose networks a service is on (`default` where it names none)."""
    declared = spec.get("networks")
    names = list(declared) if isinstance(declared, dict) else [str(one) for one in listed(declared)]
    return frozenset(names or ["default"])


def policies(services, routed, cluster, labels, name_key):
    """The NetworkPolicies of an instance whose `services` ({Service name: its networks}) run on a
    cluster, one per group on the same networks (named after the instance, or after the group's
    first service where there are several); `routed` names the services routes reach."""
    by_networks = {}
    for name, networks in services.items():
        by_networks.setdefault(networks, []).append(name)
    found = []
    for networks, members in sorted(by_networks.items(), key=lambda pair: sorted(pair[1])):
        peers = sorted(name for name, theirs in services.items() if theirs & networks)
        allowed = {"podSelector": _selector(peers, labels, name_key)}
        name = cluster.instance if len(by_networks) == 1 else f"{cluster.instance}-{min(members)}"
        spec = {
            "podSelector": _selector(members, labels, name_key),
            "policyTypes": ["Ingress"],
            "ingress": [{"from": [allowed]}],
        }
        found.append(_policy(label(name), spec, labels, cluster.namespace))
    if routed and cluster.ingress_namespaces:
        spec = {
            "podSelector": _selector(sorted(routed), labels, name_key),
            "policyTypes": ["Ingress"],
            "ingress": [{"from": [_namespace(one) for one in cluster.ingress_namespaces]}],
        }
        found.append(_policy(label(f"{cluster.instance}-routed"), spec, labels, cluster.namespace))
    return found


def namespace_policy(namespace, ingress_namespaces):
    """The NetworkPolicy of a namespace an instance holds: its pods admit only its own namespace's
    and the ingress controller's (and Gateway's)."""
    spec = {
        "podSelector": {},
        "policyTypes": ["Ingress"],
        "ingress": [{"from": [_namespace(one) for one in (namespace, *ingress_namespaces)]}],
    }
    return _policy(policy_name(namespace), spec, {}, namespace)


def policy_name(namespace):
    """The name of the NetworkPolicy that isolates a namespace an instance holds."""
    return label(f"{namespace}-isolated")


def _selector(names, labels, name_key):
    """The instance's pods of the Services `names`."""
    return {
        "matchLabels": dict(labels),
        "matchExpressions": [{"key": name_key, "operator": "In", "values": list(names)}],
    }


def _namespace(name):
    return {"namespaceSelector": {"matchLabels": {NAMESPACE_NAME: name}}}


def _policy(name, spec, labels, namespace):
    named = metadata(name, dict(mapping(labels)), namespace)
    return {"apiVersion": "networking.k8s.io/v1", "kind": "NetworkPolicy", "metadata": named, "spec": spec}
