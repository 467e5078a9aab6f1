"""An instance's pods on a cluster are reached as Compose's networks let its services reach each
other: on every corpus Compose file, each policy selects the pods it means, and one service's pods
admit another's exactly where Docker Compose puts the two on a shared network; the services a route
reaches admit the ingress controller's namespace and the Gateway's too."""

import pytest

from app.definitions.on_kubernetes.names import label
from app.errors import Invalid
from support import compose_oracle as oracle
from support import corpus
from support.on_kubernetes import decoded_by_kubectl
from tests.definitions.test_container_defaults import LIMITS, corpus_files
from tests.definitions.test_on_kubernetes import converted


def selects(selector, labels):
    """Whether a Kubernetes label selector (matchLabels, matchExpressions with In) selects `labels`."""
    if any(labels.get(key) != value for key, value in selector.get("matchLabels", {}).items()):
        return False
    return all(labels.get(one["key"]) in one["values"] for one in selector.get("matchExpressions", []))


def admitted(policies, source, target):
    """Whether pods labelled `source` may reach pods labelled `target` under `policies`."""
    return any(
        selects(policy["spec"]["podSelector"], target)
        and any(
            "podSelector" in peer and selects(peer["podSelector"], source)
            for rule in policy["spec"]["ingress"]
            for peer in rule["from"]
        )
        for policy in policies
    )


@pytest.mark.parametrize("name", corpus_files("compose"))
def test_each_service_admits_exactly_the_services_compose_puts_on_a_network_with_it(name):
    text = corpus.text(f"compose/{name}")
    try:
        _, answer, objects = converted(text)
    except Invalid as exc:
        assert "a cluster runs images" in str(exc.errors)  # a service with `build` and no `image`
        return
    accepted, project = oracle.config(text, oracle.values_for(text), oracle.env_files(text))
    assert accepted, project
    policies = [one for one in objects if one["kind"] == "NetworkPolicy"]
    pods = {
        one["metadata"]["name"]: one["spec"]["template"]["metadata"]["labels"]
        for one in objects
        if one["kind"] in ("Deployment", "Job")
    }
    networks = {
        label(service): set(spec.get("networks") or {"default": None})
        for service, spec in project["services"].items()
        if "network_mode" not in spec
    }
    assert all(any(selects(policy["spec"]["podSelector"], labels) for policy in policies) for labels in pods.values())
    for source in pods.keys() & networks.keys():
        for target in pods.keys() & networks.keys():
            shared = bool(networks[source] & networks[target])
            assert admitted(policies, pods[source], pods[target]) == shared, (source, target)
    assert decoded_by_kubectl(answer["yml"])


def test_a_routed_service_admits_the_ingress_controller_and_the_gateway_and_no_other_namespace():
    text = (
        "services:\n  proxy:\n    image: nginx\n    networks: [front]\n  app:\n    image: app\n"
        "    networks: [front, back]\n  db:\n    image: postgres\n    networks: [back]\n"
        "networks: {front: {}, back: {}}\nx-routes:\n  - {service: proxy, port: 80, host: shop.example.com}\n"
    )
    limits = {"cluster": {"gateway": "infra/public"}}
    _, answer, objects = converted(text, limits={**LIMITS, **limits}, ingress_namespaces=("ingress-nginx",))
    policies = [one for one in objects if one["kind"] == "NetworkPolicy"]
    namespaces = [
        peer["namespaceSelector"]["matchLabels"]["kubernetes.io/metadata.name"]
        for policy in policies
        for rule in policy["spec"]["ingress"]
        for peer in rule["from"]
        if "namespaceSelector" in peer
    ]
    assert namespaces == ["ingress-nginx", "infra"]
    routed = next(policy for policy in policies if policy["metadata"]["name"] == "shop-routed")
    assert routed["spec"]["podSelector"]["matchExpressions"][0]["values"] == ["proxy"]
    labels = {
        one["metadata"]["name"]: one["spec"]["template"]["metadata"]["labels"]
        for one in objects
        if one["kind"] == "Deployment"
    }
    assert not admitted(policies, labels["proxy"], labels["db"]) and admitted(policies, labels["app"], labels["db"])
    assert decoded_by_kubectl(answer["yml"])
