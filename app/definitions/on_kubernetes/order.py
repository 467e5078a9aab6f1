"""Start order on a cluster: a service that waits for another to start (`service_started`, a
list's entry) or to be healthy (`service_healthy`) gets an init container `wait-for-<it>` that
waits until it answers on its Service's first TCP port; with no port (a headless Service), on the
port the waiting service names it with (`db:5432` in its environment or command), else until its
name resolves. A Service routes only to ready pods, and a headless name resolves to ready pods
alone, and a healthcheck is a readiness probe, so each condition reads the same. What a cluster
cannot carry stays a note."""

import re

from app.definitions.on_kubernetes.names import label
from app.definitions.schemas import listed, mapping

WAITED = ("service_started", "service_healthy")
RESTRICTED = {  # what the restricted Pod Security Standard requires of a container
    "runAsNonRoot": True,
    "runAsUser": 65534,
    "allowPrivilegeEscalation": False,
    "capabilities": {"drop": ["ALL"]},
    "seccompProfile": {"type": "RuntimeDefault"},
}


def awaited(spec, where, notes):
    """The services `spec` waits for to start or be healthy; notes for what is not carried."""
    depends = spec.get("depends_on")
    if isinstance(depends, list):
        return [str(one) for one in depends]
    found = []
    for name, entry in mapping(depends).items():
        entry, path = mapping(entry), [*where, "depends_on", name]
        condition = entry.get("condition", "service_started")
        if entry.get("restart") in (True, "true"):
            notes.dropped([*path, "restart"], "a cluster restarts no pod when the one it depends on restarts")
        if condition in WAITED:
            found.append(str(name))
        elif condition == "service_completed_successfully":
            notes.approximated(path, "it runs as a Job; this pod starts without waiting for it to complete")
    return found


def port_named(spec, other):
    """The first port the Compose service `spec` names the service `other` with, as a host of its
    environment's values or its command (`other:5432`, `postgres://u@other:5432/db`); None."""
    environment = spec.get("environment")
    values = environment.values() if isinstance(environment, dict) else listed(environment)
    commands = [spec.get(key) for key in ("command", "entrypoint")]
    words = [*values, *(word for command in commands for word in (command if isinstance(command, list) else [command]))]
    for word in words:
        found = re.search(rf"(?<![\w.-]){re.escape(other)}:([0-9]{{1,5}})\b", str(word or ""))
        if found and 0 < int(found[1]) < 65536:
            return int(found[1])
    return None


def wait_container(service, cluster, waiting, other):
    """The init container that waits for the Service `service` (an object, as written): on its
    first TCP port, else on the port the Compose service `waiting` names the awaited service
    `other` with (`port_named`)."""
    name = service["metadata"]["name"]
    ports = [port["port"] for port in service["spec"].get("ports", ()) if port["protocol"] == "TCP"]
    port = ports[0] if ports else port_named(waiting, other)
    check = f"nc -z -w 2 {name} {port}" if port else f"nslookup {name}"
    return {
        "name": label(f"wait-for-{name}"),
        "image": cluster.wait_image,
        "command": ["sh", "-c", f"until {check}; do echo waiting for {name}; sleep 2; done"],
        "resources": {"limits": dict(cluster.wait_limits)},
        "securityContext": RESTRICTED,
    }
