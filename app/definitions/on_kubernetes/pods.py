"""A Compose service as a pod's container: image, command, environment, user and security, the
health check as a readiness probe, and the limits the fit counted; the pod around it (grace
period, hostname, host aliases, annotations). A value that holds a secret parameter's value is
read from the render's values Secret, never written in the workload."""

import math
import re
import shlex

from app.definitions import kubernetes_pods, kubernetes_rules, pod_security
from app.definitions.on_kubernetes.network import host_aliases, port_name
from app.definitions.on_kubernetes.notes import WHY
from app.definitions.schemas import listed, mapping
from app.model import dns, quantities
from app.model.quantities import QuantityError

# Service keys the container or the pod carries (others: WHY, or named as not carried)
CARRIED = frozenset(
    {
        "image",
        "command",
        "entrypoint",
        "environment",
        "working_dir",
        "user",
        "privileged",
        "read_only",
        "cap_add",
        "cap_drop",
        "tty",
        "stdin_open",
        "healthcheck",
        "stop_grace_period",
        "hostname",
        "extra_hosts",
        "deploy",
        "scale",
        "mem_limit",
        "cpus",
        "mem_reservation",
        "ports",
        "expose",
        "volumes",
        "tmpfs",
        "shm_size",
        "configs",
        "secrets",
        "restart",
        "labels",
        "pull_policy",
        "profiles",
        "extends",
        "group_add",
        "depends_on",
    }
)
PULL = {"always": "Always", "never": "Never", "missing": "IfNotPresent", "if_not_present": "IfNotPresent"}
MOST_SECONDS = 2**31 - 1  # Kubernetes' int32 fields


class Secrets:
    """The render's values Secret: one key per value that holds a secret parameter's value."""

    def __init__(self, name, texts):
        self.name, self.texts, self.data = name, [text for text in texts if text], {}

    def holds(self, value):
        return any(text in value for text in self.texts)

    def reference(self, key, value):
        """The `valueFrom` of `value`, kept under `key`."""
        key = re.sub(r"[^-._a-zA-Z0-9]", "_", key)
        self.data[key] = value
        return {"secretKeyRef": {"name": self.name, "key": key}}


def container(name, service, where, entry, listened, secrets, notes, level=None):
    """The container of service `name` (`entry`: its requirements' perContainer entry, or None;
    `listened`: its ports; `level`: the pod security level it runs at)."""
    made = {"name": name}
    if isinstance(service.get("image"), str):
        made["image"] = _text(service["image"])
    if "build" in service:
        notes.approximated([*where, "build"], WHY["build"])
    env = _environment(name, service, where, secrets, notes)
    for key, field in (("entrypoint", "command"), ("command", "args")):
        if key in service and service[key] is not None:
            made[field] = _words(service[key], env, name, secrets)
    probe = _probe(mapping(service.get("healthcheck")), [*where, "healthcheck"], (env, name, secrets), notes)
    if env:
        made["env"] = env
    if isinstance(service.get("working_dir"), str):
        made["workingDir"] = service["working_dir"]
    _pull(service, where, made, notes)
    if listened:
        made["ports"] = [
            {"name": port_name(port, protocol), "containerPort": port, "protocol": protocol}
            for port, protocol in listened
        ]
    resources = _resources(service, where, entry, notes)
    if resources:
        made["resources"] = resources
    security = _security(service, where, notes, level)
    if security:
        made["securityContext"] = security
    for key, field in (("tty", "tty"), ("stdin_open", "stdin")):
        if service.get(key) is True:
            made[field] = True
    if probe:
        made["readinessProbe"] = probe
    return made


def pod(service, where, notes):
    """The pod spec's own fields (the containers, volumes and restart policy are the caller's)."""
    spec = {}
    if "stop_grace_period" in service:
        seconds = _seconds(service["stop_grace_period"])
        if seconds is not None:
            spec["terminationGracePeriodSeconds"] = seconds
    hostname = service.get("hostname")
    if isinstance(hostname, str):
        if dns.LABEL.regex.fullmatch(hostname):
            spec["hostname"] = hostname
        else:
            notes.dropped([*where, "hostname"], "not a DNS label, which a pod's hostname must be")
    aliases = host_aliases(service, where, notes)
    if aliases:
        spec["hostAliases"] = aliases
    groups = [str(one) for one in listed(service.get("group_add"))]
    if groups and all(one.isdigit() for one in groups):
        spec["securityContext"] = {"supplementalGroups": [int(one) for one in groups]}
    elif groups:
        notes.dropped([*where, "group_add"], "a group by name: Kubernetes takes numeric group ids")
    return spec


def annotations(service, where, secrets, notes):
    """The service's `labels` as the pod's annotations, where their keys may be annotation keys."""
    labels = service.get("labels")
    pairs = labels.items() if isinstance(labels, dict) else [str(one).partition("=")[::2] for one in listed(labels)]
    found = {}
    for key, value in pairs:
        text = "" if value is None else _text(value)
        if kubernetes_rules.key_problem(str(key)):
            notes.dropped([*where, "labels", key], "not a valid annotation key")
        elif secrets.holds(text):
            notes.dropped([*where, "labels", key], "holds a secret value, which annotations would show")
        else:
            found[str(key)] = text
    return found


def _seconds(value, least=0):
    """A Compose duration in the whole seconds Kubernetes takes, rounded up, at least `least`; None
    for what is not a duration (Compose has refused it)."""
    try:
        seconds = quantities.compose_duration(value)
    except QuantityError:
        return None
    return min(max(math.ceil(seconds), least), MOST_SECONDS)


def _text(value):
    """A value as Compose passes it to the container: text as written, `true` for a YAML true."""
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _escaped(text):
    """A literal text in a command, an argument or an env value, which Kubernetes expands: every
    `$` doubled (it reads `$$` as `$` and `$(VAR)` as a variable)."""
    return text.replace("$", "$$")


def _environment(name, service, where, secrets, notes):
    declared = service.get("environment")
    if isinstance(declared, dict):
        pairs = [(key, value, key) for key, value in declared.items()]
    else:
        pairs = []
        for index, entry in enumerate(listed(declared)):
            key, equals, value = str(entry).partition("=")
            pairs.append((key, value if equals else None, index))
    env = []
    for key, value, at in pairs:
        if value is None:
            notes.dropped([*where, "environment", at], "takes its value from the shell that runs Compose: not set here")
            continue
        if not kubernetes_pods.ENV_NAME.fullmatch(str(key)):
            notes.dropped([*where, "environment", at], "no name Kubernetes takes (printable ASCII but '=')")
            continue
        text = _text(value)
        if secrets.holds(text):
            env.append({"name": str(key), "valueFrom": secrets.reference(f"{name}.{key}", text)})
        else:
            env.append({"name": str(key), "value": _escaped(text)})
    return env


def _words(value, env, name, secrets):
    """A command or its arguments as a list of strings (a string split as Compose splits it); a
    word that holds a secret value reads it through `$(VAR)` of a variable from the Secret."""
    words = [_text(word) for word in value] if isinstance(value, list) else _split(str(value))
    written = []
    for word in words:
        word = _escaped(word)
        for index, text in enumerate(secrets.texts):
            if text in word:
                word = word.replace(_escaped(text), f"$({_secret_variable(env, name, secrets, index)})")
        written.append(word)
    return written


def _secret_variable(env, name, secrets, index):
    """`BLUEPRINT_SECRET_<index>`, a variable of the container `name` read from the Secret."""
    variable = f"BLUEPRINT_SECRET_{index}"
    if all(one["name"] != variable for one in env):
        env.append({"name": variable, "valueFrom": secrets.reference(f"{name}.{variable}", secrets.texts[index])})
    return variable


def _from_environment(command, container):
    """A probe's command whose words hold a secret value, as a shell reading it from the
    container's environment instead (a probe's command is shown wherever the pod is read, and
    Kubernetes expands no variable in it): `sh -c` and its script, each secret `${VARIABLE}`
    (a word of an exec form quoted around it)."""
    env, name, secrets = container
    variables = {
        text: "${" + _secret_variable(env, name, secrets, index) + "}"
        for index, text in enumerate(secrets.texts)
        if any(text in word for word in command)
    }
    pattern = re.compile("(" + "|".join(map(re.escape, sorted(variables, key=len, reverse=True))) + ")")
    if command[:2] == ["/bin/sh", "-c"]:  # a script: each secret where it stands, as its quotes read it
        return ["/bin/sh", "-c", _substituted(command[2], pattern, variables)]
    words = [pattern.split(word) for word in command]
    script = " ".join(
        "".join(f'"{variables[part]}"' if part in variables else shlex.quote(part) for part in parts if part) or "''"
        for parts in words
    )
    return ["/bin/sh", "-c", script]


def _split(text):
    try:
        return shlex.split(text)
    except ValueError:
        return text.split()


def _pull(service, where, made, notes):
    policy = service.get("pull_policy")
    if policy is None:
        return
    if policy in PULL:
        made["imagePullPolicy"] = PULL[policy]
    else:
        made["imagePullPolicy"] = "Always"
        notes.approximated([*where, "pull_policy"], f"{str(policy)[:40]!r}: pulled at every start")


def _resources(service, where, entry, notes):
    """Limits: what the fit counted (declared, or the profile's default); requests: reservations,
    where the container has limits and at most them."""
    limits = {}
    if entry is not None and isinstance(entry.get("memory"), int):
        limits["memory"] = quantities.binary_text(entry["memory"])
    if entry is not None and isinstance(entry.get("cpu"), int):
        limits["cpu"] = quantities.millis_text(entry["cpu"])
    reservations = mapping(mapping(mapping(service.get("deploy")).get("resources")).get("reservations"))
    reserved = {"memory": reservations.get("memory", service.get("mem_reservation")), "cpu": reservations.get("cpus")}
    requests = {}
    for resource, value in reserved.items():
        if value is None:
            continue
        path = [*where, "deploy", "resources", "reservations", "cpus" if resource == "cpu" else "memory"]
        try:
            amount = quantities.compose_bytes(value) if resource == "memory" else quantities.compose_millis(value)
        except QuantityError:
            continue
        limit = entry.get(resource) if entry is not None else None
        if not amount:  # a reservation of nothing requests nothing
            continue
        if not isinstance(limit, int):
            notes.dropped(path, "a request needs a limit here: the container has none")
        elif amount > limit:
            notes.approximated(path, "above the limit: requested at the limit")
            requests[resource] = limits[resource]
        else:
            requests[resource] = (
                quantities.binary_text(amount) if resource == "memory" else quantities.millis_text(amount)
            )
    found = {}
    if limits:
        found["limits"] = limits
    if requests:
        found["requests"] = requests
    return found


def _security(service, where, notes, level):
    found = {}
    user = service.get("user")
    if user is not None:
        uid, _, gid = str(user).partition(":")
        if uid.isdigit() and (not gid or gid.isdigit()):
            found["runAsUser"] = int(uid)
            if gid:
                found["runAsGroup"] = int(gid)
        else:
            notes.dropped([*where, "user"], "a user by name: Kubernetes takes a numeric user id")
    if service.get("privileged") is True:
        found["privileged"] = True
    if service.get("read_only") is True:
        found["readOnlyRootFilesystem"] = True
    capabilities = {}
    for key, field in (("cap_add", "add"), ("cap_drop", "drop")):
        names = [str(one).upper().removeprefix("CAP_") for one in listed(service.get(key))]
        if names:
            capabilities[field] = names
    if capabilities:
        found["capabilities"] = capabilities
    if level == pod_security.RESTRICTED:
        _restricted(found, where, notes)
    return found


def _restricted(found, where, notes):
    """What the restricted level requires, where the file is silent on it (where it contradicts
    it, the fit names the violation)."""
    why = "written as the profile's restricted pod security level requires"
    if "runAsUser" not in found or found["runAsUser"] != 0:
        found["runAsNonRoot"] = True
        notes.approximated([*where, "user"], f"runAsNonRoot {why}: an image whose user is root does not start")
    found["allowPrivilegeEscalation"] = False
    notes.approximated([*where, "security_opt"], f"allowPrivilegeEscalation: false and seccomp RuntimeDefault {why}")
    found["seccompProfile"] = {"type": "RuntimeDefault"}
    capabilities = found.setdefault("capabilities", {})
    if capabilities.get("drop") != ["ALL"]:
        capabilities["drop"] = ["ALL"]
        notes.approximated([*where, "cap_drop"], f"every capability dropped {why}")


def _substituted(script, pattern, variables):
    """`script` (POSIX shell) with each secret `pattern` finds replaced by its variable, written
    for where it stands: between single quotes `'"${V}"'`, between double ones `${V}`, else `"${V}"`."""
    out, at, quote = [], 0, None
    for found in pattern.finditer(script):
        quote = _quoted(script[at : found.start()], quote)
        variable = variables[found[0]]
        out += [script[at : found.start()], {"'": f"'\"{variable}\"'", '"': variable}.get(quote, f'"{variable}"')]
        at = found.end()
    return "".join(out) + script[at:]


def _quoted(text, quote):
    """The quote (`'`, `"` or None) open after `text`, read from `quote`, as sh reads quotes."""
    index = 0
    while index < len(text):
        char = text[index]
        if quote == "'":
            quote = None if char == "'" else quote
        elif char == "\\":
            index += 1  # the next character is taken as it is
        elif char == '"':
            quote = None if quote == '"' else '"'
        elif char == "'" and quote is None:
            quote = "'"
        index += 1
    return quote


def _probe(check, where, container, notes):
    """The health check as a readiness probe (Docker restarts nothing for health); `container`:
    (its env, its name, the Secrets), where a secret the check names is read from."""
    test = check.get("test")
    if check.get("disable") is True or (isinstance(test, list) and test and test[0] == "NONE"):
        return None
    if not test:
        if check:  # timings for the image's own check, which no probe can run
            notes.dropped(where, "no test: the image's own health check, which Kubernetes does not run")
        return None
    if isinstance(test, str):
        command = ["/bin/sh", "-c", test]
    elif test[0] == "CMD-SHELL":
        command = ["/bin/sh", "-c", " ".join(_text(word) for word in test[1:])]
    elif test[0] == "CMD":
        command = [_text(word) for word in test[1:]]
    else:
        return None
    if any(container[2].holds(word) for word in command):
        command = _from_environment(command, container)
        notes.approximated(where, "its command holds a secret value: a shell reads it from the container's environment")
    probe = {"exec": {"command": command}}
    for key, field, default in (("interval", "periodSeconds", 30), ("timeout", "timeoutSeconds", 30)):
        seconds = _seconds(check[key], least=1) if key in check else None
        probe[field] = default if seconds is None else seconds
    start = _seconds(check["start_period"]) if "start_period" in check else None
    if start:
        probe["initialDelaySeconds"] = start
    retries = check.get("retries", 3)
    probe["failureThreshold"] = retries if isinstance(retries, int) and retries > 0 else 3
    if "start_interval" in check:
        notes.dropped([*where, "start_interval"], "Kubernetes probes at one interval")
    return probe
