"""The Traefik in front of a Docker host, as a render for Docker Compose meets it: the conventions
of the environment an instance is delivered to (or of its profile's `cluster.proxy`): the
entrypoints and certificate resolver each router names, the external network Traefik reaches the
routed services on (`traefik.docker.network`, each routed service joined to it beside `default`),
and, with `publish: false`, the routed ports no longer published on the host (Traefik is the one
way in). Each edit is written over the nodes it changes; every other byte stays as written."""

import json

import yaml

from app.definitions.defaults import node_at, put_first

ALIAS = "proxy"  # the key the file's `networks` gives the proxy's network (another where the file has it)


def conventions(profile_cluster, environment=None):
    """The proxy conventions a render meets: the profile's `cluster.proxy`, each member the
    environment's `proxy` gives replaced by it; None where neither has any."""
    merged = {**((profile_cluster or {}).get("proxy") or {}), **((environment or {}).get("proxy") or {})}
    return merged or None


def router_labels(router, tls, proxy):
    """The labels a router takes from the conventions: its entrypoints and, for TLS, its resolver."""
    pairs = {}
    if proxy.get("entrypoints"):
        pairs[f"traefik.http.routers.{router}.entrypoints"] = ",".join(proxy["entrypoints"])
    if tls and proxy.get("certResolver"):
        pairs[f"traefik.http.routers.{router}.tls.certresolver"] = proxy["certResolver"]
    return pairs


def edits(text, document, routed, proxy):
    """(start, end, text) edits joining each service of `routed` ({service: its routed ports}) to
    the proxy's network and, with `publish: false`, publishing none of those ports; the
    network declared as external. No edit where the conventions name no network and publish."""
    found, services = [], node_at(document, "services")
    alias = _alias(document) if proxy.get("network") else None
    for name, ports in routed.items():
        service = node_at(services, name)
        if not isinstance(service, yaml.MappingNode):
            continue
        if alias and node_at(service, "network_mode") is None:
            found.append(_joined(text, service, alias))
        if proxy.get("publish") is False and (published := node_at(service, "ports")) is not None:
            found += _unpublished(text, published, ports)
    if alias:
        found.append(_declared(text, document, alias, proxy["network"]))
    return found


def service_labels(proxy):
    """The label a routed service takes: the network Traefik reaches it on."""
    return {"traefik.docker.network": proxy["network"]} if proxy.get("network") else {}


def _alias(document):
    declared = node_at(document, "networks")
    taken = {key.value for key, _ in declared.value} if isinstance(declared, yaml.MappingNode) else set()
    return next(
        name for index in range(len(taken) + 1) if (name := f"{ALIAS}-{index}" if index else ALIAS) not in taken
    )


def _joined(text, service, alias):
    """The service on `alias` too; on `default` as well where it named no network."""
    joined = node_at(service, "networks")
    if isinstance(joined, yaml.SequenceNode):
        return _item_added(text, joined, json.dumps(alias))
    if isinstance(joined, yaml.MappingNode):
        return put_first(text, joined, [f"{json.dumps(alias)}: {{}}"])
    if joined is not None:  # `networks:` with no value
        return joined.start_mark.index, joined.end_mark.index, f' ["default", {json.dumps(alias)}]'
    return put_first(text, service, [f'networks: ["default", {json.dumps(alias)}]'])


def _item_added(text, sequence, item):
    if sequence.flow_style or not sequence.value:
        at = text.index("[", sequence.start_mark.index) + 1
        return at, at, item + (", " if sequence.value else "")
    first = sequence.value[0]
    return first.start_mark.index, first.start_mark.index, f"{item}\n{' ' * (first.start_mark.column - 2)}- "


def _unpublished(text, published, ports):
    """The `ports` value without the entries whose container port is one of `ports`, written as a
    flow sequence of the entries kept (each as written)."""
    if not isinstance(published, yaml.SequenceNode):
        return []
    kept = [_flow(text, entry) for entry in published.value if _target(entry) not in ports]
    if len(kept) == len(published.value):
        return []
    start, end = published.start_mark.index, published.end_mark.index
    line = text.rfind("\n", start, end) + 1  # a block sequence ends where the next key starts
    if not published.flow_style and line > start and not text[line:end].strip():
        return [(start, line, f"[{', '.join(kept)}]\n")]  # that key keeps its indentation
    return [(start, end, f"[{', '.join(kept)}]")]


def _target(entry):
    """The container port of a `ports` entry (short syntax or long), None where it is no one port."""
    if isinstance(entry, yaml.MappingNode):
        target = node_at(entry, "target")
        text = target.value if isinstance(target, yaml.ScalarNode) else ""
    elif isinstance(entry, yaml.ScalarNode):
        text = entry.value.rpartition(":")[2].partition("/")[0]
    else:
        return None
    return int(text) if text.isdigit() else None


def _flow(text, entry):
    """An entry as written, in flow style: a block mapping's pairs between braces."""
    if isinstance(entry, yaml.MappingNode) and not entry.flow_style:
        pairs = [f"{_source(text, key)}: {_source(text, value)}" for key, value in entry.value]
        return "{" + ", ".join(pairs) + "}"
    return _source(text, entry)


def _source(text, node):
    return text[node.start_mark.index : node.end_mark.index]


def _declared(text, document, alias, network):
    """The proxy's network among the file's networks: external, by its name."""
    written = f"{json.dumps(alias)}: {{external: true, name: {json.dumps(network)}}}"
    declared = node_at(document, "networks")
    if isinstance(declared, yaml.MappingNode):
        return put_first(text, declared, [written])
    if declared is not None:  # `networks:` with no value
        return declared.start_mark.index, declared.end_mark.index, f" {{{written}}}"
    end = document.end_mark.index
    return end, end, ("" if text[:end].endswith("\n") else "\n") + f"networks: {{{written}}}\n"
