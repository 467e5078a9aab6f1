"""A service's names on the network: its `ports` and `expose` as container ports and as the ports of
one Service named after it (headless where it declares none, so that its name resolves as on a
Compose network), and `extra_hosts` as host aliases."""

import ipaddress

from app.definitions.compose_load import LoadError, port_spec
from app.definitions.on_kubernetes.names import metadata
from app.definitions.schemas import listed

LOOPBACK, LOOPBACKS = "loopback", ("127.0.0.1", "::1", "localhost")
LOOPBACK_ONLY = (
    "published on the host's own address only: on a cluster its Service is reachable from the instance's "
    "pods, and its namespace's policy decides who else (nothing outside the cluster)"
)
MOST_PORTS = 1000  # a service's ports written out, ranges expanded (a 256 KiB file could ask for millions)


def ports(service, where, notes):
    """[(port, protocol)] the service listens on, once each, in order; notes for what a cluster
    does otherwise (a port published on the host)."""
    found = []
    for index, entry in enumerate(listed(service.get("ports"))):
        path = [*where, "ports", index]
        listened = _port_entry(entry, path, notes)
        found += [(target, protocol) for target, protocol, _ in listened]
        published = {where for _, _, where in listened if where}
        if published == {LOOPBACK}:  # one note for the entry, a range included
            notes.approximated(path, LOOPBACK_ONLY)
        elif published:
            notes.approximated(
                path, "published on the host: on a cluster, an Ingress or a LoadBalancer Service publishes it"
            )
    for index, entry in enumerate(listed(service.get("expose"))):
        text = str(entry)
        number, _, protocol = text.partition("/")
        for target in _range(number, [*where, "expose", index], notes):
            found.append((target, (protocol or "tcp").upper()))
    found = list(dict.fromkeys(found))
    if len(found) > MOST_PORTS:
        notes.dropped([*where, "ports"], f"more than {MOST_PORTS} ports: the first {MOST_PORTS} are written out")
    return found[:MOST_PORTS]


def _port_entry(entry, path, notes):
    """(target, protocol, published) of one `ports` entry, short or long; `published` is False,
    True, or LOOPBACK for the host's own address only."""
    if isinstance(entry, dict):
        target = entry.get("target")
        protocol = str(entry.get("protocol") or "tcp").upper()
        published = entry.get("published") not in (None, "") and (
            LOOPBACK if str(entry.get("host_ip")) in LOOPBACKS else True
        )
        for key in sorted(set(entry) - {"target", "protocol", "published", "host_ip", "mode", "name"}):
            notes.dropped([*path, key], "no Kubernetes port field")
        return [(int(target), protocol, published)] if isinstance(target, int) else []
    try:
        spec = port_spec(str(entry))
    except LoadError:
        return []
    parts = spec.split(":")
    container, _, protocol = parts[-1].partition("/")
    host = spec.rsplit(":", 2)[0].strip("[]") if len(parts) > 2 else None  # `[::1]:53:53` too
    published = len(parts) > 1 and (LOOPBACK if host in LOOPBACKS else True)
    return [(target, (protocol or "tcp").upper(), published) for target in _range(container, path, notes)]


def counted(service):
    """At least as many ports as `ports` writes for the service, counted without expanding a range
    (a render for a cluster is bounded before it is made)."""
    total = 0
    for entry in listed(service.get("ports")):
        if isinstance(entry, dict):
            total += isinstance(entry.get("target"), int)
            continue
        try:
            total += len(_numbers(port_spec(str(entry)).split(":")[-1].partition("/")[0]))
        except LoadError:
            continue
    total += sum(len(_numbers(str(entry).partition("/")[0])) for entry in listed(service.get("expose")))
    return min(total, MOST_PORTS)


def _numbers(text):
    """The ports a number or a range of them names, as a range object (nothing is expanded); none
    for what is not one, or for a range of more than MOST_PORTS."""
    numbers = _span(text)
    return range(0) if len(numbers) > MOST_PORTS else numbers


def _span(text):
    """`8000-8999` (or `80`) as a range object, however long; empty for what is not one."""
    first, dash, last = text.partition("-")
    if not first.isdigit() or (dash and not last.isdigit()):
        return range(0)
    return range(int(first), int(last or first) + 1)


def _range(text, path, notes):
    numbers = _span(text)
    if len(numbers) > MOST_PORTS:
        notes.dropped(path, f"a range of more than {MOST_PORTS} ports is not written out")
        return []  # each range is bounded, and so is what they make together (`ports`)
    return [number for number in numbers if 0 < number <= 65535]


def port_name(port, protocol):
    """`tcp-8080`: unique per port and protocol, at most 15 characters."""
    return f"{protocol.lower()}-{port}"


def service_object(name, selector, listened, namespace):
    """The Service that makes `name` resolve (labelled as its pods, which it selects): its ports,
    or headless."""
    spec = {"selector": selector}
    if listened:
        spec["ports"] = [
            {"name": port_name(port, protocol), "port": port, "targetPort": port, "protocol": protocol}
            for port, protocol in listened
        ]
    else:
        spec["clusterIP"] = "None"
    return {"apiVersion": "v1", "kind": "Service", "metadata": metadata(name, selector, namespace), "spec": spec}


def host_aliases(service, where, notes):
    """`extra_hosts` with an address, as hostAliases grouped by address."""
    entries = service.get("extra_hosts")
    pairs = []
    if isinstance(entries, dict):
        pairs = [(host, address, [*where, "extra_hosts", host]) for host, address in entries.items()]
    for index, entry in enumerate(listed(entries)):
        text = str(entry)
        separator = "=" if "=" in text else ":"
        host, _, address = text.partition(separator)
        pairs.append((host, address.strip("[]"), [*where, "extra_hosts", index]))
    by_address = {}
    for host, address, path in pairs:
        addresses = address if isinstance(address, list) else [address]
        for one in addresses:
            try:
                ipaddress.ip_address(str(one).strip("[]"))
            except ValueError:
                notes.dropped(path, f"{str(one)[:40]!r} is not an address (`host-gateway` is the Docker host's)")
                continue
            by_address.setdefault(str(one).strip("[]"), []).append(str(host))
    return [{"ip": address, "hostnames": hosts} for address, hosts in by_address.items()]
