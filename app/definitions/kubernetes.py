"""Kubernetes: a stream of manifests, each with string `apiVersion`, `kind` and `metadata.name`;
the kinds Kubernetes defines checked against its published schemas for RELEASE (strict: an
unknown field is refused), custom resources by those three fields and their metadata (an ObjectMeta,
as kubectl decodes it). Measured as the contract
says (docs/api.md, "Measured"): workloads' replicas times their containers' limits, else
requests, and the storage their claims request."""

import json
import re
from functools import cache
from importlib.resources import files

import jsonschema_rs

from app.definitions import kubernetes_rules, pod_security, routes
from app.definitions.placeholders import Unresolved, decided
from app.definitions.schemas import amount, compile_schema, listed, mapping, place, problems
from app.definitions.templates import Dialect
from app.definitions.totals import PENDING
from app.model import goyaml, quantities

RELEASE = "1.37.0"
# Manifests are deployed as they are (or through a tool that substitutes text): a `${` that is no
# placeholder is text (shell scripts use `${#A[@]}`), and a plain scalar that is exactly one
# variable's default is read as YAML reads that text (`replicas: ${REPLICAS:-3}` is 3).
DIALECT = Dialect(strict=False, escape=False, typed_defaults=True, loader=goyaml.KubernetesLoader)
# (kind, API group) -> (path of the pod count, default 1 when None; path of the pod spec)
WORKLOADS = {
    ("Deployment", "apps"): (("spec", "replicas"), ("spec", "template", "spec")),
    ("StatefulSet", "apps"): (("spec", "replicas"), ("spec", "template", "spec")),
    ("ReplicaSet", "apps"): (("spec", "replicas"), ("spec", "template", "spec")),
    ("DaemonSet", "apps"): (None, ("spec", "template", "spec")),
    ("Job", "batch"): (("spec", "parallelism"), ("spec", "template", "spec")),
    ("CronJob", "batch"): (
        ("spec", "jobTemplate", "spec", "parallelism"),
        ("spec", "jobTemplate", "spec", "template", "spec"),
    ),
    ("Pod", ""): (None, ("spec",)),
    ("ReplicationController", ""): (("spec", "replicas"), ("spec", "template", "spec")),
    # OpenShift's DeploymentConfig runs its pods as a Deployment does (`v1` is its legacy group)
    ("DeploymentConfig", "apps.openshift.io"): (("spec", "replicas"), ("spec", "template", "spec")),
    ("DeploymentConfig", ""): (("spec", "replicas"), ("spec", "template", "spec")),
}


CUSTOM_K8S_GROUPS = frozenset({"gateway.networking.k8s.io"})
INT32 = 2**31 - 1
# Fields Kubernetes' types hold as an int32: a larger value is refused by the API server, and is
# refused here where the definition is written (the schemas say `format: int32`, which no JSON
# Schema validator checks on a number)
INT32_FIELDS = frozenset(
    {
        "replicas",
        "minReplicas",
        "maxReplicas",
        "parallelism",
        "completions",
        "backoffLimit",
        "port",
        "number",
        "containerPort",
        "hostPort",
        "nodePort",
        "targetPort",
        "revisionHistoryLimit",
        "minReadySeconds",
        "progressDeadlineSeconds",
        "successfulJobsHistoryLimit",
        "failedJobsHistoryLimit",
    }
)


def group_of(api_version):
    """The API group of an `apiVersion` (`apps/v1`: `apps`; `v1`: the core group, "")."""
    return api_version.split("/")[0] if "/" in api_version else ""


def built_in(group):
    """Whether Kubernetes itself defines the group's kinds (core, apps, *.k8s.io...; the Gateway
    API's are custom resources its SIG publishes)."""
    return "." not in group or (group.endswith(".k8s.io") and group not in CUSTOM_K8S_GROUPS)


@cache
def _schemas():
    """The release's schemas, found on first use (importing kubernetes-validate takes 0.2 s)."""
    return files("kubernetes_validate") / "kubernetes-json-schema" / f"v{RELEASE}-local-strict"


@cache
def _registry():
    definitions = json.loads((_schemas() / "_definitions.json").read_text())
    return jsonschema_rs.Registry([(definitions["$id"], definitions)])


@cache
def _validator(kind, api_version):
    """The compiled schema of a kind, or None when this release defines none."""
    name = re.sub(r"^([^./]*)(?:\.[^/]*)?/", r"\1-", api_version)
    schema = _schemas() / f"{kind.lower()}-{name}.json"
    if not schema.is_file():
        return None
    return compile_schema(json.loads(schema.read_text()), _registry())


def _label(index, manifest):
    metadata = manifest.get("metadata") if isinstance(manifest, dict) else None
    name = metadata.get("name") if isinstance(metadata, dict) else None
    kind = manifest.get("kind") if isinstance(manifest, dict) else None
    if isinstance(kind, str) and isinstance(name, str):
        return f"{_shortened(kind)}/{_shortened(name)}"
    return f"document {index}"


def _shortened(text):
    """`text` as a problem names it: past 80 characters, its first 80 and `…`."""
    return text if len(text) <= 80 else f"{text[:80]}…"


def _basics(manifest, label):
    if not isinstance(manifest, dict):
        return [f"{label}: a manifest must be a mapping."]
    found = [
        f"{place([key], label)}: must be a string."
        for key in ("apiVersion", "kind")
        if not isinstance(manifest.get(key), str)
    ]
    if manifest.get("kind") == "":
        found.append(f"{place(['kind'], label)}: must not be empty (kubectl: Object 'Kind' is missing).")
    metadata = manifest.get("metadata")
    if not isinstance(metadata, dict) or not isinstance(metadata.get("name"), str):
        found.append(f"{place(['metadata', 'name'], label)}: must be a string.")
    return found


def judge(documents, totals):
    """Every problem of the stream; without one, what it runs is added to `totals`."""
    built = documents.built
    if documents.odd:
        documents, found = _decoded_types(documents)
        if found:
            return found
    return _check(documents, built) or _measure(documents, totals)


def _decoded_types(documents):
    """The manifests as Kubernetes' tools read them: every key made the string sigs.k8s.io/yaml
    makes it on the way to JSON (`1`, `true`, `0.5`), which a null key cannot be."""
    read, found = [], []
    for index, manifest in enumerate(documents, start=1):
        nulls = [path for path, what in goyaml.odd_places(manifest) if what == "key" and path[-1] is None]
        found += [
            f"{place(path[:-1], _label(index, manifest))}: a null key; Kubernetes reads none (quote it)."
            for path in nulls
        ]
        read.append(None if nulls else goyaml.string_keys(manifest))
    return read, found


def _check(documents, built=False):
    manifests = [doc for doc in documents if doc is not None]
    if not manifests:
        return ["(the document): no manifest; a blueprint needs at least one."]
    found = []
    for index, manifest in enumerate(manifests, start=1):
        label = _label(index, manifest)
        basics = _basics(manifest, label)
        if basics:
            found += basics
            continue
        api_version, kind = manifest["apiVersion"], manifest["kind"]
        if isinstance(api_version, Unresolved) or isinstance(kind, Unresolved):
            continue  # which schema applies is not known until the variable is set
        validator, group = _validator(kind, api_version), group_of(api_version)
        counted = _counts(manifest, [], label)
        if validator is not None:
            typed = counted + problems(validator, manifest, label)
        elif built_in(group):
            typed = [*counted, f"{place(['kind'], label)}: Kubernetes {RELEASE} defines no {kind} in {api_version}."]
        else:  # a custom resource: its metadata is still Kubernetes' own ObjectMeta, which kubectl decodes
            typed = counted + problems(_custom_resource(), manifest, label)
        found += typed if typed or built else refused_by_the_api_server(manifest, label)
    return found if built else found + written_twice(manifests)


def written_twice(manifests):
    """Each object of a kind and name an earlier document of the stream has: an instance's objects
    share its namespace (one naming another is refused at admission), and `kubectl create`, like
    the kustomize that builds a git environment for Argo CD and Flux, refuses it."""
    first, found = {}, []
    for index, manifest in enumerate(map(mapping, manifests), start=1):
        kind, api_version = manifest.get("kind"), manifest.get("apiVersion")
        name = mapping(manifest.get("metadata")).get("name")
        if not all(decided(one) for one in (kind, api_version, name)):
            continue
        key = (group_of(api_version), kind, name)
        if key in first:
            found.append(
                f"{_label(index, manifest)}: document {index} writes it again (the first is document "
                f"{first[key]}); in an instance's namespace Kubernetes holds one {_shortened(kind)} of a name."
            )
        first.setdefault(key, index)
    return found


def refused_by_the_api_server(manifest, label):
    """What the API server refuses in a manifest that its kind's schema takes (kubernetes_rules)."""
    kind, group = manifest["kind"], group_of(manifest["apiVersion"])
    pod_path = WORKLOADS.get((kind, group), (None, None))[1]
    return kubernetes_rules.problems_of(manifest, kind, group, pod_path, label)


def _counts(node, path, label):
    """Each integer of a manifest past what Kubernetes holds it in: an int32 field past
    2,147,483,647, any other past int64 (which a stored document cannot hold either); the places
    are looked for only in a manifest that holds an integer past int32."""
    return _places_of_counts(node, path, label) if _holds_large(node) else []


def _holds_large(node):
    """Whether any integer below `node` is past int32 (or below its negative): a walk without
    paths, since nearly every manifest holds none."""
    nodes = [node]
    while nodes:
        node = nodes.pop()
        kind = type(node)  # the exact types first: the walk visits every node of every manifest
        if kind is dict:
            nodes.extend(node.values())
        elif kind is list:
            nodes.extend(node)
        elif kind is str or kind is bool or node is None:
            continue
        elif isinstance(node, dict):
            nodes.extend(node.values())
        elif isinstance(node, list):
            nodes.extend(node)
        elif isinstance(node, int) and not -INT32 <= node <= INT32:
            return True
    return False


def _places_of_counts(node, path, label):
    if isinstance(node, dict):
        return [problem for key, value in node.items() for problem in _places_of_counts(value, [*path, key], label)]
    if isinstance(node, list):
        return [
            problem for index, value in enumerate(node) for problem in _places_of_counts(value, [*path, index], label)
        ]
    if isinstance(node, bool) or not isinstance(node, int):
        return []
    named = next((key for key in reversed(path) if isinstance(key, str)), None)
    most, width = (INT32, "a 32-bit") if named in INT32_FIELDS else (quantities.INT64, "a 64-bit")
    if abs(node) > most:
        return [f"{place(path, label)}: {str(node)[:24]} is larger than Kubernetes holds ({width} integer)."]
    return []


@cache
def _custom_resource():
    """What Kubernetes itself types in a custom resource: its `metadata`, an ObjectMeta."""
    meta = "https://kubernetes.io/api/_definitions.json#/$defs/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"
    return compile_schema({"type": "object", "properties": {"metadata": {"$ref": meta}}}, _registry())


def undefined_fields(manifest):
    """(path, name) of each field of a manifest that its kind's schema does not define (which the
    strict schema refuses and the API server drops); none for a kind this release does not define."""
    kind, api_version = mapping(manifest).get("kind"), mapping(manifest).get("apiVersion")
    validator = _validator(kind, api_version) if isinstance(kind, str) and isinstance(api_version, str) else None
    if validator is None:
        return []
    try:
        errors = list(validator.validator.iter_errors(manifest))
    except (ValueError, TypeError):  # a value JSON has no type for: the definition's check names it
        return []
    return [
        (tuple(error.instance_path), name)
        for error in errors
        if isinstance(error.kind, jsonschema_rs.ValidationErrorKind.AdditionalProperties)
        for name in error.kind.unexpected
    ]


def _get(mapping, path):
    for key in path:
        mapping = mapping.get(key) if isinstance(mapping, dict) else None
    return mapping


def _declared(resources, resource, where, found, totals):
    """A container's limit, else its request, for `resource` (memory or cpu); an unknown limit
    is unknown (the request is no bound of what the container may use)."""
    parse = quantities.kubernetes_bytes if resource == "memory" else quantities.kubernetes_millis
    for level in ("limits", "requests"):
        value = mapping(resources.get(level)).get(resource)
        if value is not None:
            return amount(parse, value, f"{where}.resources.{level}.{resource}", found, totals)
    return None


def _initialized(inits, running, count, where, found, totals):
    """A pod's init containers as Kubernetes counts them: the pod needs the larger of the largest
    of them and the sum of its containers, so what the largest exceeds that sum by is added, per
    pod. Where a container declares nothing the profile's default decides, and nothing is added
    (docs/on-kubernetes.md, "Routes, conventions, start order, isolation"); init containers are not `containers`."""
    declared = []
    for position, container in enumerate(inits):
        resources = mapping(mapping(container).get("resources"))
        at = f"{where}.initContainers.{position}"
        declared.append(tuple(_declared(resources, resource, at, found, totals) for resource in ("memory", "cpu")))
    for column, resource in enumerate(("memory", "cpu")):
        tops = [pair[column] for pair in declared if isinstance(pair[column], int)]
        sums = [pair[column] for pair in running]
        if tops and count is not PENDING and all(isinstance(one, int) for one in sums):
            totals.add_surplus(resource, count * max(0, max(tops) - sum(sums)))


def _storage(claim_spec, where, found, totals, count=1):
    """What a claim requests, `count` times (PENDING where a variable stands in it)."""
    request = _get(claim_spec, ("resources", "requests", "storage"))
    read = amount(quantities.kubernetes_bytes, request, f"{where}.resources.requests.storage", found, totals)
    return read if read is PENDING else count * (read or 0)


def _route(router, backend, host, path, tls=False):
    """A route as app/definitions/routes.py keeps one, read from a Kubernetes object: its host
    (None: any host, or one a variable names until it is set) and its path (`/` where it is not a
    plain prefix: the whole host is held)."""
    host = host.lower() if isinstance(host, str) and host else None
    path = path if isinstance(path, str) and routes.PATH.fullmatch(path) else "/"
    port = backend.get("port")
    port = mapping(port).get("number") if isinstance(port, dict) else port
    service = backend.get("name")
    return {
        "service": service if isinstance(service, str) else None,
        "port": port if isinstance(port, int) and not isinstance(port, bool) else None,
        "host": host,
        "path": path,
        "tls": tls,
        "router": router,
    }


def _ingress_routes(manifest, label):
    """The hosts and paths an Ingress routes: each rule's, and its default backend's (any host)."""
    spec = mapping(manifest.get("spec"))
    certified = {host for tls in listed(spec.get("tls")) for host in listed(mapping(tls).get("hosts"))}
    found = []
    if "defaultBackend" in spec:
        found.append(_route(label, mapping(mapping(spec["defaultBackend"]).get("service")), None, "/"))
    for rule in listed(spec.get("rules")):
        rule = mapping(rule)
        host = rule.get("host")
        paths = listed(mapping(rule.get("http")).get("paths")) or [{}]
        for entry in map(mapping, paths):
            path = entry.get("path", "/") if entry.get("pathType") in ("Prefix", "Exact") else "/"
            backend = mapping(mapping(entry.get("backend")).get("service"))
            found.append(_route(label, backend, host, path, host in certified))
    return found


def _http_routes(manifest, label):
    """The hosts and paths an HTTPRoute routes: each of its hostnames (none: any host) with each
    path its rules match."""
    spec = mapping(manifest.get("spec"))
    found = []
    for rule in listed(spec.get("rules")) or [{}]:
        rule = mapping(rule)
        backend = mapping(next(iter(listed(rule.get("backendRefs"))), {}))
        matched = [mapping(mapping(match).get("path")) for match in listed(rule.get("matches"))] or [{}]
        for path in matched:
            value = path.get("value", "/") if path.get("type", "PathPrefix") in ("PathPrefix", "Exact") else "/"
            found += [_route(label, backend, host, value) for host in listed(spec.get("hostnames")) or [None]]
    return found


ROUTING = {
    ("Ingress", "networking.k8s.io"): _ingress_routes,
    ("HTTPRoute", "gateway.networking.k8s.io"): _http_routes,
}


def _measure(documents, totals):
    found, security, known = [], [], "kubernetes" in totals.security
    for index, manifest in enumerate(documents):
        if manifest is None:
            continue
        kind, name, group = manifest["kind"], manifest["metadata"]["name"], group_of(manifest["apiVersion"])
        label = f"{kind}/{name}"
        if (kind, group) in ROUTING:
            totals.routes += ROUTING[(kind, group)](manifest, label)
            if len(totals.routes) > routes.MOST:
                found.append(f"{label}: the stream routes more than {routes.MOST} hosts and paths.")
                totals.routes = totals.routes[: routes.MOST]
        if (kind, group) == ("PersistentVolumeClaim", ""):
            totals.add_storage(_storage(mapping(manifest.get("spec")), f"{label}: spec", found, totals), label, found)
        if (kind, group) in WORKLOADS:
            security += _workload(manifest, index, WORKLOADS[(kind, group)], label, found, totals, not known)
    if not known:
        totals.security = {"kubernetes": security[: pod_security.MOST_FINDINGS]}
    return found


def _workload(manifest, index, paths, label, found, totals, secured=True):
    """The pod security findings of the workload `manifest` (the `index`th document; `secured`:
    looked for), its pods' containers and a StatefulSet's claims counted in `totals` by its count
    of pods, its problems in `found`; `paths`: where its count and its pod template are."""
    count_path, pod_path = paths
    security = []
    if secured:
        annotations = _get(manifest, (*pod_path[:-1], "metadata", "annotations"))
        security = pod_security.of_pod(_get(manifest, pod_path), [f"yml.{index}", *pod_path], annotations)
    count = 1 if count_path is None else _get(manifest, count_path)
    if isinstance(count, Unresolved):
        totals.unresolved |= count.names
        count = PENDING
    count = 1 if count is None else count
    if count is not PENDING and (isinstance(count, bool) or not isinstance(count, int) or count < 0):
        found.append(f"{place(count_path, label)}: must be a whole number of pods, not {count!r}.")
        return security
    pod, running = mapping(_get(manifest, pod_path)), []
    for position, container in enumerate(listed(pod.get("containers"))):
        where = f"{place([*pod_path, 'containers', position], label)}"
        container = mapping(container)
        resources = mapping(container.get("resources"))
        memory = _declared(resources, "memory", where, found, totals)
        cpu = _declared(resources, "cpu", where, found, totals)
        at = (index, *pod_path, "containers", position)
        totals.add_containers(count, memory, cpu, f"{label}/{container.get('name')}", found, at=at)
        running.append((memory, cpu))
    _initialized(listed(pod.get("initContainers")), running, count, place([*pod_path], label), found, totals)
    if manifest["kind"] == "StatefulSet":
        for position, claim in enumerate(listed(_get(manifest, ("spec", "volumeClaimTemplates")))):
            where = place(["spec", "volumeClaimTemplates", position, "spec"], label)
            pods = 1 if count is PENDING else count
            claimed = _storage(mapping(mapping(claim).get("spec")), where, found, totals, pods)
            totals.add_storage(PENDING if count is PENDING else claimed, label, found)
    return security
