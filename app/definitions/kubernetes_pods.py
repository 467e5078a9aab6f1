"""What the Kubernetes API server refuses in a pod beyond its schema, for the slips people make
most: a container or volume named twice or not as a DNS label, a port name that is no IANA service
name or is given twice in a container, a port number outside 1-65535, a host's port two containers
take (an init container's apart), a probe or hook on an init container but a sidecar, a hook's
sleep past the pod's grace period, a probe's or hook's port that is no number nor name (`'8080'`),
a probe's seconds or thresholds below 0, a request above its limit (or, for what cannot be
overcommitted, such as a GPU or huge pages, other than it or without one), a probe or hook doing
none or several things, a volume of two sources, a container without an image, a value outside the
few a field takes, a mount naming no volume of the pod or a path mounted twice, an environment
variable's name with `=` or beyond printable ASCII. apimachinery's ValidatePodSpec; a value that a
variable with no default decides is judged once it is set."""

import re

from app.definitions.placeholders import Unresolved, decided
from app.definitions.schemas import listed, mapping, place
from app.model import dns, quantities

# the fields of a container that name a port to reach it by: its probes and its lifecycle hooks
HANDLERS = (
    ("livenessProbe", None),
    ("readinessProbe", None),
    ("startupProbe", None),
    ("lifecycle", "postStart"),
    ("lifecycle", "preStop"),
)
# the fields of a pod that take one of a few values, which the published schemas give in words
PROTOCOLS = ("TCP", "UDP", "SCTP")
POD_FIELDS = {
    ("restartPolicy",): ("Always", "OnFailure", "Never"),
    ("dnsPolicy",): ("ClusterFirstWithHostNet", "ClusterFirst", "Default", "None"),
    **{
        at: values
        for field in ("initContainers", "containers")
        for at, values in {
            (field, "*", "imagePullPolicy"): ("Always", "IfNotPresent", "Never"),
            (field, "*", "terminationMessagePolicy"): ("File", "FallbackToLogsOnError"),
            (field, "*", "ports", "*", "protocol"): PROTOCOLS,
        }.items()
    },
}
# what a probe (True) or a lifecycle hook (False) may do, one of
ACTIONS = {True: ("exec", "httpGet", "tcpSocket", "grpc"), False: ("exec", "httpGet", "tcpSocket", "sleep")}
HUGE_PAGES = "hugepages-"
GRACE = 30  # a pod's terminationGracePeriodSeconds where it gives none
PROBE_NUMBERS = ("initialDelaySeconds", "timeoutSeconds", "periodSeconds", "successThreshold", "failureThreshold")
ENV_NAME = re.compile(r"[ -<>-~]+")  # IsRelaxedEnvVarName: printable ASCII but `=`


def port_problems(port, field, path, label, unset=False):
    """The problem of `port[field]` where it is no port number (1-65535; 0 where `unset` means
    not given): a list of at most one. A value not yet an integer is the schema's to judge."""
    value = port.get(field)
    if not _integer(value) or 0 < value < 65536 or (unset and value == 0):
        return []
    return [f"{place([*path, field], label)}: {value} is no port number (1-65535), which Kubernetes refuses."]


def named_once(name, seen, at, label, what, grammar=dns.LABEL):
    """The problem of `name` (decided) at `at`, named as `grammar` says and not among `seen`, the
    names of the other `what`s (`container of the pod`): a list of at most one."""
    where = place(at, label)
    why = grammar.problem(name)
    if why:
        return [f"{where}: {why}, which Kubernetes requires of the name of a {what}."]
    if name in seen:
        return [f"{where}: another {what} is named {name!r}."]
    seen.add(name)
    return []


def one_of(node, fields, path, label):
    """Each value at a path of `fields` (a path, `*` for every item of a list -> the values
    Kubernetes takes there) that is another (an empty one is the field's default)."""
    found = []
    for at, values in fields.items():
        for value, where in _each(node, at, path):
            if decided(value) and value and value not in values:
                found.append(
                    f"{place(where, label)}: {value[:40]!r} is none of those Kubernetes takes: {', '.join(values)}."
                )
    return found


def _each(node, at, path):
    """(value, its path) for each value at `at` in `node` (which is at `path`)."""
    if not at:
        yield node, path
    elif at[0] == "*":
        for index, item in enumerate(listed(node)):
            yield from _each(item, at[1:], [*path, index])
    elif isinstance(node, dict) and at[0] in node:
        yield from _each(node[at[0]], at[1:], [*path, at[0]])


def problems_of(pod, path, label, claimed=(), template=True):
    """Each way the API server would refuse the pod spec `pod` at `path` of its object, whose
    pods also mount the claims named `claimed` (a StatefulSet's claim templates); `template`
    where it is a pod template's."""
    found, volumes = _volumes(listed(pod.get("volumes")), [*path, "volumes"], label)
    found += one_of(pod, POD_FIELDS, path, label)
    if not listed(pod.get("containers")):
        found.append(f"{place([*path, 'containers'], label)}: a pod runs a container at least, as Kubernetes requires.")
    volumes = None if volumes is None or not all(decided(name) for name in claimed) else volumes | set(claimed)
    containers, host_ports = set(), {}
    grace = pod.get("terminationGracePeriodSeconds", GRACE)
    for field in ("initContainers", "containers"):
        for index, container in enumerate(listed(pod.get(field))):
            container, at = mapping(container), [*path, field, index]
            if decided(container.get("name")):
                found += named_once(container["name"], containers, [*at, "name"], label, "container of the pod")
            found += _ports(listed(container.get("ports")), [*at, "ports"], label)
            # init containers run one at a time: each takes a host's port apart from the others
            taken = host_ports if field == "containers" else {}
            found += _host_ports(listed(container.get("ports")), taken, [*at, "ports"], label)
            if field == "initContainers" and container.get("restartPolicy") != "Always":
                found += _run_once(container, at, label)
            found += _mounts(listed(container.get("volumeMounts")), volumes, [*at, "volumeMounts"], label)
            found += _environment(listed(container.get("env")), [*at, "env"], label)
            found += _handlers(container, at, label, grace)
            found += _resources(mapping(container.get("resources")), [*at, "resources"], label)
            found += _image(container.get("image"), at, label, template)
    return found


def _image(image, path, label, template):
    """A container names its image; a Pod's without spaces around it (a template's may be `" "`,
    which OpenShift's image triggers fill)."""
    where = place([*path, "image"], label)
    if image in (None, ""):
        return [f"{where}: a container names its image, as Kubernetes requires."]
    if not template and decided(image) and image != image.strip():
        return [f"{where}: {image[:80]!r} has spaces around it, which Kubernetes refuses in a Pod."]
    return []


def _volumes(volumes, path, label):
    """The problems of the pod's volumes' names, and those names (None where a variable decides one)."""
    found, names, known = [], set(), True
    for index, volume in enumerate(map(mapping, volumes)):
        name = volume.get("name")
        if decided(name):
            found += named_once(name, names, [*path, index, "name"], label, "volume of the pod")
        known = known and not isinstance(name, Unresolved)
        sources = [key for key, value in volume.items() if key != "name" and value is not None]
        if len(sources) > 1:
            named = " and ".join(str(source)[:40] for source in sources[:4])
            found.append(f"{place([*path, index], label)}: {named}: a volume is one of them, as Kubernetes requires.")
    return found, names if known else None


def _ports(ports, path, label):
    found, names = [], set()
    for index, port in enumerate(ports):
        port, at = mapping(port), [*path, index]
        if decided(port.get("name")) and port["name"]:
            found += named_once(port["name"], names, [*at, "name"], label, "port of the container", dns.PORT_NAME)
        found += port_problems(port, "containerPort", at, label)
        found += port_problems(port, "hostPort", at, label, unset=True)
    return found


def _host_ports(ports, taken, path, label):
    """A host's port (with its protocol and address) is the pod's once, whichever container asks
    for it: `taken` holds those of the containers before, each with its place."""
    found = []
    for index, port in enumerate(map(mapping, ports)):
        key = (port.get("protocol", "TCP"), port.get("hostIP", ""), port.get("hostPort"))
        if not isinstance(key[2], int) or not key[2] or not all(map(decided, key[:2])):
            continue
        if key in taken:
            where = place([*path, index, "hostPort"], label)
            found.append(f"{where}: {taken[key]} takes the host's port {key[2]} ({key[0][:20]}) already.")
        taken.setdefault(key, place([*path, index]))
    return found


def _integer(value):
    """Whether `value` is an integer as YAML gives one (a boolean is none)."""
    return isinstance(value, int) and not isinstance(value, bool)


def _run_once(container, at, label):
    """An init container that runs to its end before the next starts (all but a sidecar, whose
    restartPolicy is Always) has no probe and no lifecycle hook."""
    found = []
    for field in dict.fromkeys(field for field, _ in HANDLERS):  # the probes, and `lifecycle` once
        if container.get(field) is not None:
            found.append(
                f"{place([*at, field], label)}: an init container has none unless its restartPolicy is Always "
                "(a sidecar), as Kubernetes requires."
            )
    return found


def _handlers(container, at, label, grace):
    """A probe or lifecycle hook does one thing (`exec`, `httpGet`, ...), on a port that is a
    number (1-65535) or a port's name (`8080` quoted is neither); a hook sleeps from 0 seconds to
    the pod's `grace`; a probe's numbers are `_probe_numbers`'. Kubernetes refuses the rest."""
    found = []
    for field, event in HANDLERS:
        given = container.get(field) if event is None else mapping(container.get(field)).get(event)
        if not isinstance(given, dict):
            continue
        where = [*at, *filter(None, (field, event))]
        actions = [action for action in ACTIONS[event is None] if given.get(action) is not None]
        if len(actions) != 1:
            said = " and ".join(actions) or "nothing"
            what = "probe" if event is None else "hook"
            found.append(
                f"{place(where, label)}: does {said}: a {what} does one of {', '.join(ACTIONS[event is None])}, "
                "as Kubernetes requires."
            )
        for action in ("httpGet", "tcpSocket", "grpc"):
            port, path = mapping(given.get(action)), [*where, action]
            found += port_problems(port, "port", path, label)
            if action != "grpc" and decided(port.get("port")) and (why := dns.PORT_NAME.problem(port["port"])):
                found.append(f"{place([*path, 'port'], label)}: {why}, which Kubernetes requires of a port.")
        seconds = mapping(given.get("sleep")).get("seconds") if event else None
        if _integer(seconds) and _integer(grace) and grace >= 0 and not 0 <= seconds <= grace:
            found.append(
                f"{place([*where, 'sleep', 'seconds'], label)}: {seconds}: a hook sleeps from 0 seconds to the pod's "
                f"terminationGracePeriodSeconds ({grace}), as Kubernetes requires."
            )
        if event is None:
            found += _probe_numbers(given, field, where, label)
    return found


def _probe_numbers(probe, field, where, label):
    """A probe's seconds and thresholds are not below 0 (0 stands for the default); a liveness or
    startup probe succeeds once (1); a probe's own grace period, where given, is above 0."""
    found = [
        f"{place([*where, name], label)}: {probe[name]} is below 0, which Kubernetes refuses."
        for name in PROBE_NUMBERS
        if _integer(probe.get(name)) and probe[name] < 0
    ]
    threshold = probe.get("successThreshold", 1)
    if field in ("livenessProbe", "startupProbe") and _integer(threshold) and threshold > 1:
        found.append(f"{place([*where, 'successThreshold'], label)}: {threshold}: a {field} succeeds once (1).")
    grace = probe.get("terminationGracePeriodSeconds")
    if _integer(grace) and grace <= 0:
        at = place([*where, "terminationGracePeriodSeconds"], label)
        found.append(f"{at}: {grace}: a probe's grace period is above 0, as Kubernetes requires.")
    return found


def _resources(resources, path, label):
    """Each request at most its limit, and equal to it for what cannot be overcommitted (an
    extended resource such as `nvidia.com/gpu`, huge pages), whose limit is then required; huge
    pages beside a cpu or memory amount. ValidateResourceRequirements."""
    requests, limits = mapping(resources.get("requests")), mapping(resources.get("limits"))
    found = []
    for name, request in requests.items():
        where = place([*path, "requests", name], label)
        if not decided(name):
            continue
        if name not in limits:
            if not _overcommitted(name):
                found.append(
                    f"{where}: {name[:80]} cannot be overcommitted: its limit is given, as Kubernetes requires."
                )
            continue
        asked, most = _quantity(request), _quantity(limits[name])
        if asked is None or most is None or asked == most:
            continue
        shown, limit = str(request)[:40], str(limits[name])[:40]
        if not _overcommitted(name):
            found.append(f"{where}: {shown} is not its limit, {limit}: {name[:80]} cannot be overcommitted.")
        elif asked > most:
            found.append(f"{where}: {shown} is more than its limit, {limit}, which Kubernetes refuses.")
    named = {name for name in (*requests, *limits) if isinstance(name, str)}
    if any(name.startswith(HUGE_PAGES) for name in named) and not named & {"cpu", "memory"}:
        found.append(f"{place(path, label)}: huge pages are asked for with cpu or memory, as Kubernetes requires.")
    return found


def _overcommitted(name):
    """Whether a resource's request may be below its limit: Kubernetes' own (no domain, or
    kubernetes.io's) but huge pages."""
    return ("/" not in name or "kubernetes.io/" in name) and not name.startswith(HUGE_PAGES)


def _quantity(value):
    """A quantity's amount, or None where a variable decides it or it is none (the schema's to judge)."""
    if isinstance(value, Unresolved):
        return None
    try:
        return quantities.kubernetes_quantity(value, "the amount")
    except quantities.QuantityError:
        return None


def _mounts(mounts, volumes, path, label):
    """Each mount names a volume of the pod (where no variable decides their names), each path once."""
    found, paths = [], set()
    for index, mount in enumerate(mounts):
        mount = mapping(mount)
        name, at = mount.get("name"), mount.get("mountPath")
        if volumes is not None and decided(name) and name not in volumes:
            found.append(f"{place([*path, index, 'name'], label)}: no volume of the pod is named {name[:80]!r}.")
        if decided(at) and at in paths:
            where = place([*path, index, "mountPath"], label)
            found.append(f"{where}: another mount of the container is at {at[:80]!r}.")
        paths.add(at if decided(at) else None)
    return found


def _environment(variables, path, label):
    found = []
    for index, variable in enumerate(variables):
        name = mapping(variable).get("name")
        if decided(name) and not ENV_NAME.fullmatch(name):
            found.append(
                f"{place([*path, index, 'name'], label)}: {name[:80]!r} is no environment variable's name "
                "(printable ASCII characters but '='), which Kubernetes requires."
            )
    return found
