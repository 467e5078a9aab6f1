"""What the Kubernetes API server refuses in an object that its schema cannot say, for the slips
people make most: a name its kind does not take (`My_App`), a label or annotation key or a label
value Kubernetes does not read, a workload whose selector does not select its own pods, two
containers of a pod with one name. The grammars are k8s.io/apimachinery's; a value that a variable
with no default decides is judged once it is set."""

import re

from app.definitions.placeholders import Unresolved
from app.definitions.schemas import listed, mapping, place

_LABEL = r"[a-z0-9](?:[-a-z0-9]*[a-z0-9])?"
DNS1123_LABEL = re.compile(_LABEL)
DNS1123_SUBDOMAIN = re.compile(rf"{_LABEL}(?:\.{_LABEL})*")
DNS1035_LABEL = re.compile(r"[a-z](?:[-a-z0-9]*[a-z0-9])?")
QUALIFIED_NAME = re.compile(r"[A-Za-z0-9](?:[-A-Za-z0-9_.]*[A-Za-z0-9])?")
SUBDOMAIN = (
    "a DNS subdomain",
    "lowercase letters, digits, '-' and '.', starting and ending with a letter or digit",
    253,
)
LABEL = ("a DNS label", "lowercase letters, digits and '-', starting and ending with a letter or digit", 63)
DNS1035 = (
    "a DNS-1035 label",
    "lowercase letters, digits and '-', starting with a letter, ending with a letter or digit",
    63,
)
# The name each kind takes, (kind, API group) -> (its grammar, what it is); the API server's
# ValidateObjectMeta with the kind's name function. Kinds not here (RBAC's, custom resources) are
# not judged by name.
NAMES = {
    ("Service", ""): (DNS1035_LABEL, DNS1035),
    ("Namespace", ""): (DNS1123_LABEL, LABEL),
    **{
        kind: (DNS1123_SUBDOMAIN, SUBDOMAIN)
        for kind in (
            ("ConfigMap", ""),
            ("Secret", ""),
            ("Pod", ""),
            ("PersistentVolumeClaim", ""),
            ("ServiceAccount", ""),
            ("ReplicationController", ""),
            ("LimitRange", ""),
            ("ResourceQuota", ""),
            ("Deployment", "apps"),
            ("StatefulSet", "apps"),
            ("DaemonSet", "apps"),
            ("ReplicaSet", "apps"),
            ("Job", "batch"),
            ("CronJob", "batch"),
            ("Ingress", "networking.k8s.io"),
            ("NetworkPolicy", "networking.k8s.io"),
            ("HorizontalPodAutoscaler", "autoscaling"),
        )
    },
}
CRONJOB_NAME = 52  # its Jobs' names add 11 characters to it, within a DNS label's 63
SELECTING = {("Deployment", "apps"), ("StatefulSet", "apps"), ("DaemonSet", "apps"), ("ReplicaSet", "apps")}


def problems_of(manifest, kind, group, pod_path, label):
    """Each way the API server would refuse `manifest` (its schema already passed): its name,
    its and its pod template's labels and annotations, its selector, its pod's container names."""
    metadata = mapping(manifest.get("metadata"))
    found = _name(metadata.get("name"), NAMES.get((kind, group)), kind, label)
    found += _metadata(metadata, ["metadata"], label)
    if pod_path is None:
        return found
    template_path = list(pod_path[:-1])  # [] for a Pod: its template is itself
    template = _at(manifest, template_path)
    if template_path:
        found += _metadata(mapping(template.get("metadata")), [*template_path, "metadata"], label)
    if (kind, group) in SELECTING:
        found += _selector(manifest, template, label)
    return found + _containers(_at(manifest, pod_path), list(pod_path), label)


def _at(manifest, path):
    for key in path:
        manifest = mapping(manifest).get(key)
    return mapping(manifest)


def _fixed(value):
    return isinstance(value, str) and not isinstance(value, Unresolved)


def _broken(value, grammar, what):
    """Why `value` is not `what` (a name, what it may hold, its most characters), or None."""
    name, holds, most = what
    if len(value) > most:
        return f"{value[:80]!r} is longer than {name} may be ({most} characters)"
    if not grammar.fullmatch(value):
        return f"{value!r} is not {name} ({holds})"
    return None


def _name(name, rule, kind, label):
    if rule is None or not _fixed(name):
        return []
    why = _broken(name, *rule)
    if why is None and kind == "CronJob" and len(name) > CRONJOB_NAME:
        why = f"{name!r} is longer than a CronJob's name may be ({CRONJOB_NAME} characters)"
    return (
        [f"{place(['metadata', 'name'], label)}: {why}, which Kubernetes requires of a {kind}'s name."] if why else []
    )


def key_problem(key):
    """Why `key` is no label or annotation key (an optional DNS subdomain prefix and `/`, then a
    name of letters, digits, '-', '_' and '.'), or None."""
    prefix, slash, name = key.rpartition("/")
    if slash and (not prefix or _broken(prefix, DNS1123_SUBDOMAIN, SUBDOMAIN)):
        return f"its prefix {prefix[:80]!r} is not a DNS subdomain"
    if len(name) > 63:
        return f"its name {name[:80]!r} is longer than 63 characters"
    if not QUALIFIED_NAME.fullmatch(name):
        return f"its name {name!r} is not letters, digits, '-', '_' and '.', starting and ending with a letter or digit"
    return None


def _metadata(metadata, path, label):
    found = []
    for field in ("labels", "annotations"):
        for key, value in mapping(metadata.get(field)).items():
            where = place([*path, field, key if len(str(key)) <= 80 else f"{key[:80]}…"], label)
            why = key_problem(key) if _fixed(key) else None
            if why:
                found.append(f"{where}: Kubernetes reads no such key: {why}.")
            elif field == "labels" and _fixed(value) and value and _broken(value, QUALIFIED_NAME, LABEL):
                found.append(
                    f"{where}: {value[:80]!r} is no label value (at most 63 letters, digits, '-', '_' and '.', "
                    "starting and ending with a letter or digit; or empty)."
                )
    return found


def _selector(manifest, template, label):
    selector = mapping(mapping(manifest.get("spec")).get("selector"))
    labels = mapping(mapping(template.get("metadata")).get("labels"))
    wanted, expressions = mapping(selector.get("matchLabels")), listed(selector.get("matchExpressions"))
    where = place(["spec", "selector"], label)
    if not wanted and not expressions:
        return [f"{where}: an empty selector selects every pod, which Kubernetes refuses."]
    decided = [*wanted.keys(), *wanted.values(), *labels.keys(), *labels.values()]
    for expression in expressions:
        decided += [mapping(expression).get("key"), *listed(mapping(expression).get("values"))]
    if not all(_fixed(value) for value in decided):
        return []
    if all(labels.get(key) == value for key, value in wanted.items()) and all(
        _selects(mapping(expression), labels) for expression in expressions
    ):
        return []
    return [f"{where}: does not select the pods of spec.template (their labels), which Kubernetes refuses."]


def _selects(expression, labels):
    key, operator, values = expression.get("key"), expression.get("operator"), listed(expression.get("values"))
    if operator == "In":
        return key in labels and labels[key] in values
    if operator == "NotIn":
        return key not in labels or labels[key] not in values
    return (key in labels) == (operator == "Exists")


def _containers(pod, path, label):
    found, seen = [], set()
    for field in ("initContainers", "containers"):
        for index, container in enumerate(listed(pod.get(field))):
            name = mapping(container).get("name")
            if not _fixed(name):
                continue
            where = place([*path, field, index, "name"], label)
            why = _broken(name, DNS1123_LABEL, LABEL)
            if why:
                found.append(f"{where}: {why}, which Kubernetes requires of a container's name.")
            elif name in seen:
                found.append(f"{where}: another container of the pod is named {name!r}.")
            seen.add(name)
    return found
