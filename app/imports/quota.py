"""Kubernetes' own quota objects and profiles, both ways. A ResourceQuota's `spec.hard` gives the
caps (`limits.memory`, else `memory`, else `requests.memory`; likewise for cpu;
`requests.storage`), a LimitRange's `Container` item its `default` (else `defaultRequest`) and
`max` the container defaults and maximum; what has no counterpart is named in the notes. An
export writes the same objects back, with what Kubernetes has no field for (the profile's name,
its container cap: Kubernetes counts pods; its id; its cluster conventions, but the storage class,
whose storage is quoted per class too) in annotations, so that its owner's import of it updates
the same profile."""

import json
import re

import yaml

from app.definitions import kubernetes
from app.definitions.on_kubernetes import budget
from app.definitions.on_kubernetes.names import label
from app.definitions.schemas import listed, mapping
from app.definitions.totals import Totals
from app.imports.candidate import Candidate
from app.model import quantities
from app.model.quantities import QuantityError
from app.model.yamlguard import Documents

NAME_ANNOTATION = "blueprints/profile-name"
ID_ANNOTATION = "blueprints/profile-id"
CONTAINERS_ANNOTATION = "blueprints/container-cap"
CLUSTER_ANNOTATION = "blueprints/cluster"  # the conventions Kubernetes has no field for, as JSON
CLASS_STORAGE = re.compile(r"([a-z0-9.-]+)\.storageclass\.storage\.k8s\.io/requests\.storage")
# cap -> (the hard keys that give it, first found wins; its grammar; how Kubernetes reads it)
HARD = {
    "memoryCap": (("limits.memory", "memory", "requests.memory"), quantities.MEMORY, quantities.kubernetes_bytes),
    "cpuCap": (("limits.cpu", "cpu", "requests.cpu"), quantities.CPU, quantities.kubernetes_millis),
    "storageCap": (("requests.storage",), quantities.STORAGE, quantities.kubernetes_bytes),
}
PER_CONTAINER = {
    "memory": (quantities.MEMORY, quantities.kubernetes_bytes),
    "cpu": (quantities.CPU, quantities.kubernetes_millis),
}


def _objects(document):
    """The objects of a stream (a `List`'s items among them)."""
    objects = document if isinstance(document, list) else [document]
    found = []
    for one in objects:
        if isinstance(one, dict) and one.get("kind") == "List" and isinstance(one.get("items"), list):
            found += one["items"]
        else:
            found.append(one)
    return found


def candidates(document, files, defaults):
    """The one profile a ResourceQuota (and at most one LimitRange) make."""
    objects = _objects(document)
    quotas = [one for one in objects if isinstance(one, dict) and one.get("kind") == "ResourceQuota"]
    ranges = [one for one in objects if isinstance(one, dict) and one.get("kind") == "LimitRange"]
    if len(quotas) != 1 or len(ranges) > 1:
        raise ValueError(
            f"must hold one ResourceQuota and at most one LimitRange, not {len(quotas)} and {len(ranges)}."
        )
    quota, metadata = quotas[0], mapping(quotas[0].get("metadata"))
    key = str(metadata.get("namespace") or metadata.get("name") or "")
    found = Candidate(key or "(unnamed)", key)
    found.problems += kubernetes.judge(Documents([*quotas, *ranges]), Totals())  # Kubernetes' own schemas, strictly
    found.notes += [
        f"{one.get('kind') if isinstance(one, dict) else type(one).__name__}: not a quota object, left out."
        for one in objects
        if one not in quotas and one not in ranges
    ]
    if found.problems:
        return [found]
    annotations = mapping(metadata.get("annotations"))
    fields = {"name": annotations.get(NAME_ANNOTATION, key)}
    found.exported_from = str(annotations.get(ID_ANNOTATION) or "") or None
    _caps(mapping(quota.get("spec")), fields, found)
    if CONTAINERS_ANNOTATION in annotations:
        fields["containerCap"] = annotations[CONTAINERS_ANNOTATION]
    _conventions(annotations, mapping(mapping(quota.get("spec")).get("hard")), fields, found)
    if ranges:
        _limit_range(mapping(ranges[0].get("spec")), fields, found)
    found.fields = fields
    return [found]


def _amount(text, grammar, read, where, found):
    try:
        return quantities.cap_text(grammar, read(text, where))
    except QuantityError as exc:
        found.problems.append(f"{where}: {exc}")
        return None


def _caps(spec, fields, found):
    hard = dict(mapping(spec.get("hard")))
    for cap, (keys, grammar, read) in HARD.items():
        given = [key for key in keys if key in hard]
        if given:
            fields[cap] = _amount(hard.pop(given[0]), grammar, read, f"spec.hard.{given[0]}", found)
            found.notes += [f"spec.hard.{key}: {given[0]} gives {cap}; left out." for key in given[1:]]
            for key in given[1:]:
                hard.pop(key)
    found.notes += [
        f"spec.hard.{key}: no counterpart in a profile (it counts containers, memory, cpu and storage); left out."
        for key in hard
    ]
    found.notes += [
        f"spec.{key}: a profile has no scopes; left out." for key in ("scopes", "scopeSelector") if spec.get(key)
    ]


def _limit_range(spec, fields, found):
    for index, item in enumerate(listed(spec.get("limits"))):
        where = f"LimitRange: spec.limits.{index}"
        if not isinstance(item, dict):
            found.notes.append(f"{where}: not an object; left out.")
            continue
        if item.get("type") != "Container":
            found.notes.append(f"{where}: type {item.get('type')}: no counterpart in a profile; left out.")
            continue
        default = "default" if item.get("default") else "defaultRequest"
        for field, source in (("containerDefaults", default), ("containerMax", "max")):
            given = mapping(item.get(source))
            amounts = {
                member: _amount(given[member], grammar, read, f"{where}.{source}.{member}", found)
                for member, (grammar, read) in PER_CONTAINER.items()
                if member in given
            }
            if amounts:
                fields[field] = amounts
            found.notes += [
                f"{where}.{source}.{key}: no counterpart in a profile; left out."
                for key in given
                if key not in PER_CONTAINER
            ]
        found.notes += [
            f"{where}.{key}: no counterpart in a profile; left out."
            for key in item
            if key not in ("type", "default", "defaultRequest", "max")
            or key == "defaultRequest"
            and default == "default"
        ]


def _conventions(annotations, hard, fields, found):
    """The profile's `cluster`: its annotation, else the storage class a quota per class names."""
    if CLUSTER_ANNOTATION in annotations:
        try:
            fields["cluster"] = json.loads(str(annotations[CLUSTER_ANNOTATION]))
        except (ValueError, RecursionError):  # JSON nested past the parser's depth: no conventions either
            found.notes.append(f"metadata.annotations.{CLUSTER_ANNOTATION}: not JSON, left out.")
        return
    classes = sorted({match[1] for key in hard if (match := CLASS_STORAGE.fullmatch(str(key)))})
    if len(classes) == 1:
        fields["cluster"] = {"storageClass": classes[0]}
    elif classes:
        found.notes.append(f"spec.hard: storage quotas of {len(classes)} storage classes: no one is the team's.")


def _object_name(profile):
    """A DNS subdomain from the profile's name, as an object's name must be: each of its parts
    between dots a DNS label (`Team. Prod` is `team.prod`)."""
    parts = (part for part in (profile.get("name") or "").lower().split(".") if re.search("[a-z0-9]", part))
    return ".".join(map(label, parts))[:253].rstrip("-.") or f"profile-{profile['_id']}"


def as_objects(profile, namespace=None):
    """The profile as a ResourceQuota and, where it has container defaults or a maximum, a
    LimitRange: YAML text, with a comment on what Kubernetes counts otherwise."""
    limits = quantities.limits(profile)
    metadata = {"name": _object_name(profile), **({"namespace": namespace} if namespace else {})}
    annotations = {NAME_ANNOTATION: profile.get("name") or "", ID_ANNOTATION: str(profile["_id"])}
    comment = ""
    if profile.get("containerCap") is not None:
        annotations[CONTAINERS_ANNOTATION] = profile["containerCap"]
        comment = (
            f"# containerCap {profile['containerCap']}: a ResourceQuota counts pods, not containers, so it is "
            f"kept in the annotation {CONTAINERS_ANNOTATION}.\n"
        )
    cluster = profile.get("cluster") or {}
    if cluster:
        annotations[CLUSTER_ANNOTATION] = json.dumps(cluster, sort_keys=True)
    quota = budget.resource_quota({**metadata, "annotations": annotations}, limits)
    if cluster.get("storageClass") and "requests.storage" in quota["spec"]["hard"]:  # its claims come from it
        storage = quota["spec"]["hard"]["requests.storage"]
        quota["spec"]["hard"][f"{cluster['storageClass']}.storageclass.storage.k8s.io/requests.storage"] = storage
    objects = [quota]
    if (limit_range := budget.limit_range(metadata, limits)) is not None:
        objects.append(limit_range)
    name = json.dumps(profile.get("name") or str(profile["_id"]))  # quoted, escaped: a name never ends the comment
    header = f"# The profile {name}, as Kubernetes' own quota objects.\n"
    return header + comment + yaml.safe_dump_all(objects, sort_keys=False)
