"""What the Kubernetes API server refuses in an object that its schema cannot say, for the slips
people make most: a name its kind does not take (`My_App`), a label or annotation key or a label
value Kubernetes does not read, a workload whose selector does not select its own pods or whose
selector expressions Kubernetes does not read, a CronJob's schedule robfig/cron does not read, a Job
whose selector Kubernetes would make or whose pods would restart Always, a Service's ports unnamed
or named twice or given a nodePort it cannot have, a value outside the few a field takes, a Secret's
data not in base64, a ConfigMap's or Secret's key that names a path (`conf.d/app.conf`) or is given
twice; a pod's own slips are `kubernetes_pods.py`'s. The grammars are k8s.io/apimachinery's; a value
that a variable with no default decides is judged once it is set."""

import base64
import binascii
import re

from app.definitions import kubernetes_pods
from app.definitions.kubernetes_pods import named_once, port_problems
from app.definitions.placeholders import decided
from app.definitions.schemas import listed, mapping, place
from app.model import dns

_QUALIFIED = re.compile(r"[A-Za-z0-9](?:[-A-Za-z0-9_.]*[A-Za-z0-9])?")
_HOLDS = "letters, digits, '-', '_' and '.', starting and ending with a letter or digit"
QUALIFIED_NAME = dns.Grammar("a qualified name", _HOLDS, 63, _QUALIFIED)  # a key's name, after its prefix
LABEL_VALUE = dns.Grammar("a label value", f"{_HOLDS}; or empty", 63, _QUALIFIED)
CONFIG_KEY = re.compile(r"(?!\.\.)[-._A-Za-z0-9]{1,253}")  # IsConfigMapKey: nor `.`
# ValidatePathSegmentName, which RBAC's names take
PATH_SEGMENT = dns.Grammar(
    "a path segment", "any text but '.' and '..', without '/' or '%'", None, re.compile(r"(?!\.\.?\Z)[^/%]+", re.S)
)
RBAC = "rbac.authorization.k8s.io"
# the fields of a ConfigMap's or Secret's keys, each kind's
KEYED = {("ConfigMap", ""): ("data", "binaryData"), ("Secret", ""): ("data", "stringData")}
# the fields whose values are bytes written in base64, and what to write text in instead
ENCODED = {("Secret", "data"): "stringData", ("ConfigMap", "binaryData"): "data"}
# The name each kind takes, (kind, API group) -> its grammar; the API server's ValidateObjectMeta
# with the kind's name function. Kinds not here (custom resources) are not judged by name.
NAMES = {
    ("Service", ""): dns.DNS1035_LABEL,
    ("Namespace", ""): dns.LABEL,
    **{(kind, RBAC): PATH_SEGMENT for kind in ("Role", "ClusterRole", "RoleBinding", "ClusterRoleBinding")},
    **{
        kind: dns.SUBDOMAIN
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
# the schedules a CronJob may name instead of five fields (robfig/cron's descriptors)
DESCRIPTORS = ("@yearly", "@annually", "@monthly", "@weekly", "@daily", "@midnight", "@hourly")
# a schedule's five fields: what each is called, its least and most values, the names it takes
MONTHS = ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec")
DAYS = ("sun", "mon", "tue", "wed", "thu", "fri", "sat")
SCHEDULE_FIELDS = (
    ("minute", 0, 59, {}),
    ("hour", 0, 23, {}),
    ("day of month", 1, 31, {}),
    ("month", 1, 12, {name: number for number, name in enumerate(MONTHS, 1)}),
    ("day of week", 0, 6, {name: number for number, name in enumerate(DAYS)}),
)
WHOLE = re.compile(r"(?P<sign>[+-]?)0*(?P<digits>[0-9]+)")  # what Go's strconv.Atoi reads, within int64
CRONJOB_NAME = 52  # its Jobs' names add 11 characters to it, within a DNS label's 63
# the fields of a kind that take one of a few values, which the published schemas give in words
UPDATES = ("RollingUpdate", "OnDelete")
ACCESS_MODES = ("ReadWriteOnce", "ReadOnlyMany", "ReadWriteMany", "ReadWriteOncePod")
FIELDS = {
    ("Service", ""): {
        ("spec", "type"): ("ClusterIP", "NodePort", "LoadBalancer", "ExternalName"),
        ("spec", "sessionAffinity"): ("ClientIP", "None"),
        ("spec", "externalTrafficPolicy"): ("Cluster", "Local"),
        ("spec", "internalTrafficPolicy"): ("Cluster", "Local"),
        ("spec", "ports", "*", "protocol"): kubernetes_pods.PROTOCOLS,
    },
    ("Deployment", "apps"): {("spec", "strategy", "type"): ("Recreate", "RollingUpdate")},
    ("StatefulSet", "apps"): {
        ("spec", "podManagementPolicy"): ("OrderedReady", "Parallel"),
        ("spec", "updateStrategy", "type"): UPDATES,
        ("spec", "volumeClaimTemplates", "*", "spec", "accessModes", "*"): ACCESS_MODES,
    },
    ("DaemonSet", "apps"): {("spec", "updateStrategy", "type"): UPDATES},
    ("CronJob", "batch"): {("spec", "concurrencyPolicy"): ("Allow", "Forbid", "Replace")},
    ("PersistentVolumeClaim", ""): {
        ("spec", "accessModes", "*"): ACCESS_MODES,
        ("spec", "volumeMode"): ("Block", "Filesystem"),
    },
    ("Ingress", "networking.k8s.io"): {
        ("spec", "rules", "*", "http", "paths", "*", "pathType"): ("Exact", "Prefix", "ImplementationSpecific")
    },
}
# a selector expression's operators, and whether each takes values
OPERATORS = {"In": True, "NotIn": True, "Exists": False, "DoesNotExist": False}
JOBS = {("Job", "batch"), ("CronJob", "batch")}
SELECTING = {("Deployment", "apps"), ("StatefulSet", "apps"), ("DaemonSet", "apps"), ("ReplicaSet", "apps")}
# the restart policies a kind's pods may have (a pod's own default is Always)
RESTARTS = {
    **{kind: ("Always",) for kind in SELECTING | {("ReplicationController", "")}},
    **{kind: ("OnFailure", "Never") for kind in JOBS},
}


def problems_of(manifest, kind, group, pod_path, label):
    """Each way the API server would refuse `manifest` (its schema already passed): its name,
    its and its pod template's labels and annotations, its selector, a Service's ports, its pod."""
    metadata, spec = mapping(manifest.get("metadata")), mapping(manifest.get("spec"))
    found = _name(metadata.get("name"), NAMES.get((kind, group)), kind, label)
    found += _metadata(metadata, ["metadata"], label)
    found += kubernetes_pods.one_of(manifest, FIELDS.get((kind, group), {}), [], label)
    if (kind, group) == ("Service", ""):
        found += _service(spec, label)
    if (kind, group) == ("Ingress", "networking.k8s.io"):
        found += _ingress_paths(spec, label)
    if (kind, group) == ("CronJob", "batch") and decided(spec.get("schedule")):
        found += _schedule(spec["schedule"], label)
    if (kind, group) == ("Deployment", "apps"):
        found += _strategy(mapping(spec.get("strategy")), label)
    if (kind, group) in KEYED:
        found += _keys(manifest, KEYED[kind, group], kind, label)
    if pod_path is None:
        return found
    template_path = list(pod_path[:-1])  # [] for a Pod: its template is itself
    template = _at(manifest, template_path)
    if template_path:
        found += _metadata(mapping(template.get("metadata")), [*template_path, "metadata"], label)
    pods_labels = mapping(mapping(template.get("metadata")).get("labels"))
    if (kind, group) in SELECTING:
        found += _selecting(spec, ["spec"], pods_labels, label)
    if (kind, group) in JOBS:
        found += _job_selector(_at(manifest, template_path[:-1]), template_path[:-1], pods_labels, kind, label)
    claimed = _claimed(spec) if (kind, group) == ("StatefulSet", "apps") else []
    pod = _at(manifest, pod_path)
    found += _restart_policy(pod, pod_path, RESTARTS.get((kind, group)), kind, label)
    return found + kubernetes_pods.problems_of(pod, list(pod_path), label, claimed, template=bool(template_path))


def _service(spec, label):
    """A Service's selector, its ports, an ExternalName's host."""
    found = _labels(mapping(spec.get("selector")), ["spec", "selector"], label)
    found += _service_ports(listed(spec.get("ports")), spec.get("type", "ClusterIP") in ("ClusterIP", ""), label)
    if spec.get("type") == "ExternalName" and not spec.get("externalName"):
        where = place(["spec", "externalName"], label)
        found.append(f"{where}: an ExternalName Service names the host it stands for, as Kubernetes requires.")
    return found


def _strategy(strategy, label):
    """A Deployment's Recreate strategy takes no rollingUpdate."""
    if strategy.get("type") == "Recreate" and strategy.get("rollingUpdate") is not None:
        where = place(["spec", "strategy", "rollingUpdate"], label)
        return [f"{where}: a Recreate strategy takes no rollingUpdate, as Kubernetes requires."]
    return []


def _schedule(schedule, label):
    """A CronJob's schedule as robfig/cron's ParseStandard reads it: five fields or a descriptor
    (`@daily`, `@every 1h`); its time zone in `timeZone`, not in the schedule."""
    where, words = place(["spec", "schedule"], label), schedule.split()
    if "TZ" in schedule:
        return [f"{where}: a time zone goes in spec.timeZone; Kubernetes refuses TZ or CRON_TZ in a schedule."]
    if words and words[0].startswith("@"):
        if (words[0] in DESCRIPTORS and len(words) == 1) or (words[0] == "@every" and len(words) == 2):
            return []
        return [f"{where}: {words[0][:20]!r} is none of {', '.join(DESCRIPTORS)}, nor `@every` a duration."]
    if len(words) != 5:
        return [f"{where}: {len(words)} fields; a schedule has five (minute, hour, day of month, month, day of week)."]
    for word, (called, least, most, names) in zip(words, SCHEDULE_FIELDS, strict=True):
        if why := _field_problem(word, least, most, names):
            return [f"{where}: its {called} {why}, which Kubernetes refuses."]
    return []


def _field_problem(field, least, most, names):
    """Why robfig/cron refuses one field of a schedule, or None: a list of ranges, each `*` or `?`,
    a value or two joined by `-` (a number, or a name where the field takes names), then maybe
    `/` and a step; a lone value with a step runs to the field's most."""
    for each in filter(None, field.split(",")):
        span, *steps = each.split("/")
        ends, shown = span.split("-"), repr(each[:20])
        if len(steps) > 1:
            return f"{shown} has more than one '/'"
        if ends[0] in ("*", "?"):
            start, end = least, most
        elif len(ends) > 2:
            return f"{shown} has more than one '-'"
        else:
            values = [names.get(end.lower(), _whole(end)) for end in ends]
            if None in values:
                return f"{shown} is {'no number nor name' if names else 'no number'}"
            start, end = values[0], most if steps and len(ends) == 1 else values[-1]
        step = _whole(steps[0]) if steps else 1
        if step is None or step == 0:
            return f"{shown} has no step of a whole number above 0"
        if not least <= start <= end <= most:
            return f"{shown} is not a range within {least}-{most}"
    return None


def _whole(text):
    """`text` as Go's strconv.Atoi reads a number robfig/cron takes (0 to int64's most), or None."""
    number = WHOLE.fullmatch(text)
    if number is None or len(number["digits"]) > 19 or int(number["digits"]) >= 2**63:
        return None
    return None if number["sign"] == "-" and int(number["digits"]) else int(number["digits"])


def _ingress_paths(spec, label):
    """An Ingress's paths are absolute."""
    found = []
    for index, rule in enumerate(map(mapping, listed(spec.get("rules")))):
        for number, path in enumerate(map(mapping, listed(mapping(rule.get("http")).get("paths")))):
            value = path.get("path")
            if decided(value) and value and not value.startswith("/"):
                where = place(["spec", "rules", index, "http", "paths", number, "path"], label)
                found.append(f"{where}: {value[:80]!r} is not absolute (starting with '/'), as Kubernetes requires.")
    return found


def _restart_policy(pod, pod_path, allowed, kind, label):
    """A Job's pods end, so they restart OnFailure or Never, given (their default is a pod's,
    Always, which a Job refuses); a Deployment's, StatefulSet's, DaemonSet's or ReplicaSet's run
    until replaced: Always."""
    policy = pod.get("restartPolicy", "Always")
    if allowed is None or not decided(policy) or policy in allowed:
        return []
    where = place([*pod_path, "restartPolicy"], label)
    if "Always" in allowed:
        return [f"{where}: {policy[:20]!r}: a {kind}'s pods run until replaced, Always, as Kubernetes requires."]
    given = f"{policy[:20]!r}" if "restartPolicy" in pod else "none given (a pod's default is Always)"
    return [f"{where}: {given}: a {kind}'s pods end, OnFailure or Never, as Kubernetes requires."]


def _claimed(spec):
    """The claims a StatefulSet's pods mount beside their volumes: its claim templates' names."""
    return [mapping(mapping(claim).get("metadata")).get("name") for claim in listed(spec.get("volumeClaimTemplates"))]


def _at(manifest, path):
    for key in path:
        manifest = mapping(manifest).get(key)
    return mapping(manifest)


def _name(name, grammar, kind, label):
    if grammar is None or not decided(name):
        return []
    why = grammar.problem(name)
    if why is None and kind == "CronJob" and len(name) > CRONJOB_NAME:
        why = f"{name!r} is longer than a CronJob's name may be ({CRONJOB_NAME} characters)"
    return (
        [f"{place(['metadata', 'name'], label)}: {why}, which Kubernetes requires of a {kind}'s name."] if why else []
    )


def key_problem(key):
    """Why `key` is no label or annotation key (an optional DNS subdomain prefix and `/`, then a
    name of letters, digits, '-', '_' and '.'), or None."""
    prefix, slash, name = key.rpartition("/")
    if slash and (not prefix or dns.SUBDOMAIN.problem(prefix)):
        return f"its prefix {prefix[:80]!r} is not a DNS subdomain"
    why = QUALIFIED_NAME.problem(name)
    return f"its name {why}" if why else None


def _metadata(metadata, path, label):
    found = _labels(mapping(metadata.get("labels")), [*path, "labels"], label)
    for key in mapping(metadata.get("annotations")):
        why = key_problem(key) if decided(key) else None
        found += (
            [f"{_place_of_key([*path, 'annotations'], key, label)}: Kubernetes reads no such key: {why}."]
            if why
            else []
        )
    return found


def _labels(labels, path, label):
    """Each label, or a selector's label, whose key or value Kubernetes does not read."""
    found = []
    for key, value in labels.items():
        where = _place_of_key(path, key, label)
        why = key_problem(key) if decided(key) else None
        if why:
            found.append(f"{where}: Kubernetes reads no such key: {why}.")
        elif decided(value) and value and (why := LABEL_VALUE.problem(value)):
            found.append(f"{where}: {why}.")
    return found


def _place_of_key(path, key, label):
    return place([*path, key if len(str(key)) <= 80 else f"{key[:80]}…"], label)


def _selector(selector, labels, path, label):
    """A workload's selector selects something, and its own pods (where no variable decides either)."""
    wanted, expressions = mapping(selector.get("matchLabels")), listed(selector.get("matchExpressions"))
    where = place(path, label)
    if not wanted and not expressions:
        return [f"{where}: an empty selector selects every pod, which Kubernetes refuses."]
    compared = [*wanted.keys(), *wanted.values(), *labels.keys(), *labels.values()]
    for expression in expressions:
        compared += [mapping(expression).get("key"), *listed(mapping(expression).get("values"))]
    if not all(decided(value) for value in compared):
        return []
    if all(labels.get(key) == value for key, value in wanted.items()) and all(
        _selects(mapping(expression), labels) for expression in expressions
    ):
        return []
    return [f"{where}: does not select the pods of its template (their labels), which Kubernetes refuses."]


def _selecting(spec, path, pods_labels, label):
    """A workload's selector: labels and expressions Kubernetes reads, selecting its own pods."""
    selector = mapping(spec.get("selector"))
    found = _labels(mapping(selector.get("matchLabels")), [*path, "selector", "matchLabels"], label)
    found += _expressions(listed(selector.get("matchExpressions")), [*path, "selector"], label)
    return found + _selector(selector, pods_labels, [*path, "selector"], label)


def _job_selector(spec, path, pods_labels, kind, label):
    """Kubernetes makes a Job's selector, and refuses one given, unless `manualSelector` is true:
    then one is required, selecting the Job's pods (a CronJob's Jobs are refused alike)."""
    where = place([*path, "selector"], label)
    whose = "a Job's" if kind == "Job" else "its Jobs'"
    if spec.get("manualSelector") is True:
        if "selector" not in spec:
            return [f"{where}: with manualSelector true, {whose} selector is given, as Kubernetes requires."]
        return _selecting(spec, path, pods_labels, label)
    if "selector" in spec:
        return [f"{where}: Kubernetes makes {whose} selector and refuses one given, unless manualSelector is true."]
    return []


def _expressions(expressions, path, label):
    """Each selector expression's key a label key, its operator one of four, its values label
    values: some for In and NotIn, none for Exists and DoesNotExist."""
    found = []
    for index, expression in enumerate(map(mapping, expressions)):
        at = [*path, "matchExpressions", index]
        key, operator, values = expression.get("key"), expression.get("operator"), listed(expression.get("values"))
        if decided(key) and (why := key_problem(key)):
            found.append(f"{place([*at, 'key'], label)}: Kubernetes reads no such key: {why}.")
        if decided(operator) and operator not in OPERATORS:
            found.append(f"{place([*at, 'operator'], label)}: {operator[:20]!r} is none of {', '.join(OPERATORS)}.")
        elif operator in OPERATORS and bool(values) != OPERATORS[operator]:
            given = "some values" if OPERATORS[operator] else "no values"
            found.append(f"{place([*at, 'values'], label)}: {operator} takes {given}, as Kubernetes requires.")
        for number, value in enumerate(values):
            if decided(value) and value and (why := LABEL_VALUE.problem(value)):
                found.append(f"{place([*at, 'values', number], label)}: {why}.")
    return found


def _selects(expression, labels):
    key, operator, values = expression.get("key"), expression.get("operator"), listed(expression.get("values"))
    if operator == "In":
        return key in labels and labels[key] in values
    if operator == "NotIn":
        return key not in labels or labels[key] not in values
    return (key in labels) == (operator == "Exists")


def _service_ports(ports, cluster_ip, label):
    """A Service's ports: each named (a DNS label, once) where there are several, each a port
    number, each target a port number or a port name (0 or none: the port itself); no nodePort
    on a `cluster_ip` Service's, where no node listens."""
    found, names = [], set()
    for index, port in enumerate(ports):
        port, at = mapping(port), ["spec", "ports", index]
        name, target = port.get("name"), port.get("targetPort")
        if decided(name) and name:
            found += named_once(name, names, [*at, "name"], label, "port of the Service")
        elif name in (None, "") and len(ports) > 1:
            found.append(
                f"{place([*at, 'name'], label)}: a Service of several ports names each, as Kubernetes requires."
            )
        found += port_problems(port, "port", at, label)
        if decided(target) and target and (why := dns.PORT_NAME.problem(target)):
            found.append(f"{place([*at, 'targetPort'], label)}: {why}, which Kubernetes requires of a target.")
        found += port_problems(port, "targetPort", at, label, unset=True)
        if cluster_ip and port.get("nodePort"):
            found.append(f"{place([*at, 'nodePort'], label)}: a ClusterIP Service has none, as Kubernetes requires.")
    return found


def _keys(manifest, fields, kind, label):
    """A ConfigMap's or Secret's keys: each a file's name in the volume that mounts it, once in
    a ConfigMap (a Secret's `stringData` overrides its `data`); the values of a Secret's `data`
    and a ConfigMap's `binaryData` in base64. A value is never shown: it may be a secret."""
    found, seen = [], set()
    for field in fields:
        for key, value in mapping(manifest.get(field)).items():
            where = _place_of_key([field], key, label)
            if decided(key) and (key == "." or not CONFIG_KEY.fullmatch(key)):
                found.append(
                    f"{where}: Kubernetes reads no such key (at most 253 letters, digits, '-', '_' and '.', "
                    "not starting with '..'): a volume names a file by it."
                )
            elif key in seen and kind == "ConfigMap":
                found.append(f"{where}: the key is also in data, which Kubernetes refuses.")
            seen.add(key)
            if (kind, field) in ENCODED and decided(value) and not _base64(value):
                found.append(
                    f"{where}: the value is not base64, which Kubernetes reads {field} in "
                    f"(text goes in {ENCODED[kind, field]})."
                )
    return found


def _base64(text):
    """Whether Go's encoding/json reads `text` as bytes: padded standard base64, line breaks aside."""
    try:
        base64.b64decode(text.replace("\r", "").replace("\n", ""), validate=True)
    except (binascii.Error, ValueError):
        return False
    return True
