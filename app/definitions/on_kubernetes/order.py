"""Start order on a cluster: a service that waits for another to start (`service_started`, a
list's entry) or to be healthy (`service_healthy`) gets an init container `wait-for-<it>` that
waits until it answers on its Service's first TCP port, or, with no port (a headless Service),
until its name resolves. A Service routes only to ready pods, and a healthcheck is a readiness
probe, so both conditions read the same. What a cluster cannot carry stays a note."""

from app.definitions.on_kubernetes.names import label
from app.definitions.schemas import mapping

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


def wait_container(service, cluster):
    """The init container that waits for the Service `service` (an object, as written)."""
    name = service["metadata"]["name"]
    ports = [port["port"] for port in service["spec"].get("ports", ()) if port["protocol"] == "TCP"]
    check = f"nc -z -w 2 {name} {ports[0]}" if ports else f"nslookup {name}"
    return {
        "name": label(f"wait-for-{name}"),
        "image": cluster.wait_image,
        "command": ["sh", "-c", f"until {check}; do echo waiting for {name}; sleep 2; done"],
        "resources": {"limits": dict(cluster.wait_limits)},
        "securityContext": RESTRICTED,
    }
