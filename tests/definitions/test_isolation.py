"""An instance's pods on a cluster are reached as Compose's networks let its services reach each
other, and start in Compose's order: on every corpus Compose file, each policy selects the pods it
means, one service's pods admit another's exactly where Docker Compose puts the two on a shared
network, and each dependency Compose waits for is waited for; the services a route reaches admit
the ingress controller's namespace and the Gateway's too; a pod counts its init containers as
Kubernetes does."""

import json
import re

import pytest

from app import definitions
from app.definitions.on_kubernetes.names import label
from app.errors import Invalid
from support import compose_oracle as oracle
from support import corpus
from support.on_kubernetes import COUNTED, LIMITS, converted, converted_as_run, taken_by_kubernetes


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


def judged(name):
    """(the render for Kubernetes, its objects, the project Docker Compose starts) of a corpus
    Compose file; (None, None, None) for one a cluster cannot run (a service with `build` and no
    `image`: a 422 that says so)."""
    text = corpus.text(f"compose/{name}")
    try:
        _, answer, objects, _ = converted_as_run(text)
    except Invalid as exc:
        assert "a cluster runs images" in str(exc.errors)
        return None, None, None
    accepted, project = oracle.config(text, oracle.values_for(text), oracle.env_files(text))
    assert accepted, project
    return answer, objects, project


@pytest.mark.parametrize("name", corpus.names("compose"))
def test_each_service_admits_exactly_the_services_compose_puts_on_a_network_with_it(name):
    answer, objects, project = judged(name)
    if answer is None:
        return
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
    assert taken_by_kubernetes(answer["yml"])


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
    assert taken_by_kubernetes(answer["yml"])


@pytest.mark.parametrize("name", corpus.names("compose"))
def test_each_dependency_compose_waits_for_is_waited_for_on_its_services_first_port(name):
    answer, objects, project = judged(name)
    if answer is None:
        return
    services = {one["metadata"]["name"]: one for one in objects if one["kind"] == "Service"}
    workloads = {one["metadata"]["name"]: one for one in objects if one["kind"] in ("Deployment", "Job")}
    for service, spec in project["services"].items():
        waited = {
            label(other): other
            for other, entry in (spec.get("depends_on") or {}).items()
            if entry["condition"] in ("service_started", "service_healthy") and workloads[label(other)]["kind"] != "Job"
        }
        inits = {
            init["name"]: init
            for init in workloads[label(service)]["spec"]["template"]["spec"].get("initContainers", [])
        }
        assert sorted(inits) == sorted(f"wait-for-{other}" for other in waited), service  # in the file's order
        for other in waited:
            init = inits[f"wait-for-{other}"]
            ports = [port["port"] for port in services[other]["spec"].get("ports", []) if port["protocol"] == "TCP"]
            # headless: the port the service names it with, where it names one (as Compose normalized it)
            said = json.dumps([spec.get("environment"), spec.get("command"), spec.get("entrypoint")])
            named = re.search(rf"(?<![\w.-]){re.escape(waited[other])}:([0-9]+)", said)
            port = ports[0] if ports else named and named[1]
            check = f"nc -z -w 2 {other} {port}" if port else f"nslookup {other}"
            assert init["command"][-1].startswith(f"until {check};")
            assert init["securityContext"]["runAsUser"] == 65534 and init["resources"]["limits"]
    read_back = definitions.requirements("kubernetes", answer["yml"])
    assert {key: read_back[key] for key in COUNTED} == {key: answer["requirements"][key] for key in COUNTED}


def test_a_pod_counts_its_largest_init_container_where_it_needs_more_than_its_containers():
    pod = (
        "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  initContainers:\n"
        "  - {name: big, image: x, resources: {limits: {memory: 1Gi, cpu: 100m}}}\n"
        "  - {name: small, image: x, resources: {limits: {memory: 64Mi, cpu: 2}}}\n"
        "  containers:\n  - {name: a, image: x, resources: {limits: {memory: 256Mi, cpu: 500m}}}\n"
        "  - {name: b, image: x, resources: {limits: {memory: 256Mi, cpu: 500m}}}\n"
    )
    found = definitions.requirements("kubernetes", pod)
    assert (found["memoryBytes"], found["cpuMillis"], found["containers"]) == (1024**3, 2000, 2)
