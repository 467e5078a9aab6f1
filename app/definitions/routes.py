"""Which service answers where: a Compose file's `x-routes` (an extension Docker Compose ignores,
so that routes travel with the file, its revisions and diffs) and its Traefik router labels, read
as one list of routes; and the Traefik labels a render for Docker Compose writes of them."""

import json
import re

import yaml

from app.definitions import proxy, traefik_rules
from app.definitions.defaults import node_at, put_first
from app.definitions.on_kubernetes.names import label
from app.definitions.placeholders import Unresolved
from app.definitions.schemas import listed, mapping
from app.errors import Invalid
from app.model import dns, yamlguard

EXTENSION = "x-routes"
KEYS = ("service", "port", "host", "path", "tls")
MOST = 100  # routes a file declares
# a host only to be replaced: under a domain kept for documentation (RFC 2606, RFC 6761) or the
# placeholders templates write for one
PLACEHOLDER_HOST = re.compile(
    r"(.+\.)?((your|my)-?domain\.(com|tld)|domain\.tld|example\.(com|net|org)|[^.]+\.(example|test|invalid|localhost))"
)
# RFC 3986's unreserved characters: what ingress controllers validating paths take (ingress-nginx's
# path validation refuses the rest, which once let a path write its configuration)
PATH = re.compile(r"/[A-Za-z0-9._~/-]{0,1023}")
TRAEFIK_RULE = re.compile(r"traefik\.http\.routers\.([^.]+)\.rule")
TRAEFIK_PORT = re.compile(r"traefik\.http\.services\.([^.]+)\.loadbalancer\.server\.port")


def read(doc, resolved):
    """(routes, problems) of a Compose file as Compose reads it (`resolved`: its services): its
    `x-routes`, each checked (problems name `x-routes.N.key`), then the routes its services'
    Traefik routers declare (but those that `x-routes` has already: a render's). A route is
    {service, port, host (None: not known until rendered, or the profile's domain's), path, tls,
    router (a label's router: None for `x-routes`)}."""
    routes, problems = _declared(mapping(doc).get(EXTENSION), resolved)
    declared = {_where(route) for route in routes}
    for name, service in resolved.items():
        routes += [route for route in _labelled(name, service) if _where(route) not in declared]
    return routes, problems


def _where(route):
    """What makes two routes one: the service and port, and where they answer."""
    return route["service"], route["port"], route["host"], route["path"]


def _declared(entries, resolved):
    if entries is None:
        return [], []
    if not isinstance(entries, list):
        return [], [f"{EXTENSION}: must be a list of routes ({', '.join(KEYS)})."]
    if len(entries) > MOST:
        return [], [f"{EXTENSION}: at most {MOST} routes."]
    routes, problems = [], []
    for index, entry in enumerate(entries):
        where = f"{EXTENSION}.{index}"
        if not isinstance(entry, dict):
            problems.append(f"{where}: must be a mapping of {', '.join(KEYS)}.")
            continue
        fields = ", ".join(KEYS)
        found = [f"{where}.{str(key)[:40]}: not a route's field ({fields})." for key in entry if key not in KEYS]
        route = {"service": entry.get("service"), "port": _port(entry.get("port"))}
        route["host"], route["path"], route["tls"] = entry.get("host"), entry.get("path", "/"), _flag(entry.get("tls"))
        if route["service"] not in resolved:
            found.append(f"{where}.service: names no service of the file.")
        if route["port"] is None:
            found.append(f"{where}.port: must be a port, 1 to 65535.")
        found += _checked_host(route, where) + _checked_path(route, where)
        if route["tls"] is None:
            found.append(f"{where}.tls: must be true or false.")
        problems += found
        if not found:
            routes.append({**route, "router": None})
    return routes, problems


def _checked_host(route, where):
    host = route["host"]
    if isinstance(host, Unresolved) or host in (None, ""):
        route["host"] = None  # not known until rendered (or the profile's domain gives it)
        return []
    if not isinstance(host, str) or not dns.HOST.regex.fullmatch(host):
        return [f"{where}.host: must be a DNS name (lowercase letters, digits, '-' and '.'; '*.' first at most)."]
    return []


def _checked_path(route, where):
    path = route["path"]
    if isinstance(path, Unresolved):
        route["path"] = "/"
        return []
    if not isinstance(path, str) or not PATH.fullmatch(path):
        return [f"{where}.path: must be a path starting with '/' of letters, digits, '.', '_', '~', '-', '/'."]
    return []


def _port(value):
    """A port from an int or the text interpolation leaves; None for anything else."""
    if isinstance(value, (bool, Unresolved)):
        return None
    if isinstance(value, str) and value.isdigit():
        value = int(value)
    return value if isinstance(value, int) and 0 < value <= 65535 else None


def _flag(value):
    """tls as given: a boolean, or the text interpolation leaves; True when absent, else None."""
    if value is None:
        return True
    if isinstance(value, bool):
        return value
    return {"true": True, "false": False}.get(str(value).lower())


def _labels(service):
    """A service's labels as a mapping, from either of Compose's forms."""
    labels = service.get("labels")
    if isinstance(labels, dict):
        return {str(key): "" if value is None else str(value) for key, value in labels.items()}
    return dict(str(entry).partition("=")[::2] for entry in listed(labels))


def _labelled(name, service):
    """The routes a service's Traefik routers declare: one for each host and path each router's
    rule matches (a rule read whole, app/definitions/traefik_rules.py), its port the load
    balancer's it names (or the only one declared, or the service's only port; None where none
    is known). A rule no hold can keep is one route that answers on any host, `unheld` saying why
    (an admission refuses it)."""
    labels = _labels(service)
    if labels.get("traefik.enable", "true").lower() == "false":
        return []
    balanced = {found[1]: value for key, value in labels.items() if (found := TRAEFIK_PORT.fullmatch(key))}
    routes = []
    for key, rule in labels.items():
        router = TRAEFIK_RULE.fullmatch(key)
        if router is None:
            continue
        prefix = f"traefik.http.routers.{router[1]}."
        named = labels.get(prefix + "service")
        port = _port(balanced.get(named) if named else next(iter(balanced.values())) if len(balanced) == 1 else None)
        tls = labels.get(prefix + "tls", "").lower() == "true" or any(one.startswith(prefix + "tls.") for one in labels)
        base = {"service": name, "port": port or _only_port(service), "tls": tls, "router": router[1]}
        try:
            matched = _matched(traefik_rules.alternatives(rule))
        except traefik_rules.Unholdable as exc:
            routes.append({**base, "host": None, "path": "/", "unheld": f"services.{name}.labels: {key} {exc}."})
            continue
        routes += [{**base, "host": host, "path": path} for host, path in matched]
    return routes


def _matched(alternatives):
    """The (host, path) pairs a rule's alternatives hold: each host with each path (any host:
    None; any path, or one that is not a plain path: `/`, the whole host)."""
    pairs = []
    for hosts, paths in alternatives:
        paths = [path if PATH.fullmatch(path) else "/" for path in sorted(paths)] or ["/"]
        pairs += [(host or None, path) for host in sorted(hosts) or [None] for path in paths]
    return list(dict.fromkeys(pairs))


def _only_port(service):
    """The one container port a service declares (in `ports` or `expose`), else None."""
    found = set()
    for entry in [*listed(service.get("ports")), *listed(service.get("expose"))]:
        target = entry.get("target") if isinstance(entry, dict) else str(entry).rpartition(":")[2].partition("/")[0]
        found.add(_port(target))
    return found.pop() if len(found) == 1 else None


def place(route, index, field):
    """Where a route's `field` is written: `x-routes.N.field`, the rule of a service's Traefik
    router, or a Kubernetes object's (`Ingress/web: host`)."""
    if route["router"] is None:
        return f"{EXTENSION}.{index}.{field}"
    if "/" in route["router"]:  # a Kubernetes blueprint's own Ingress or HTTPRoute
        return f"{route['router']}: {field}"
    return f"services.{route['service']}.labels: traefik.http.routers.{route['router']}.rule"


def hosted(routes, instance, domain):
    """`routes` with a host where `x-routes` gives none and a `domain` gives one (`_given`); a 422
    naming each route whose host lies outside the domain (a team's routes stay in it). Routes
    read from labels or objects are written as they are, so they keep the host they name."""
    if not domain:
        return routes
    outside = [
        f"{place(route, index, 'host')}: {route['host']!r} is outside the profile's domain {domain!r}."
        for index, route in enumerate(routes)
        if route["host"] and route["host"] != domain and not route["host"].endswith(f".{domain}")
    ]
    if outside:
        raise Invalid({"routes": outside[:MOST]})
    hostless = [route for route in routes if _hostless(route)]
    given = _given(hostless, instance, domain, {route["host"] for route in routes if route["host"]})
    return [
        {**route, "host": given[route["service"], route["port"]]} if _hostless(route) else route for route in routes
    ]


def _hostless(route):
    """Whether a route is an `x-routes` one that names no host (a label's keeps what it names)."""
    return not route["host"] and route["router"] is None


def _given(hostless, instance, domain, taken):
    """{(service, port): host} for the `hostless` routes: the first service and port
    `<instance>.<domain>`, each further one `<service>-<instance>.<domain>` (and its port, where
    the service has two), none `taken` already, no two alike."""
    given = {}
    for service, port in dict.fromkeys((route["service"], route["port"]) for route in hostless):
        taken = taken | set(given.values())
        named = (instance, f"{service}-{instance}", f"{service}-{port}-{instance}", f"{len(given)}-{instance}")
        given[service, port] = next(host for name in named if (host := f"{label(name)}.{domain}") not in taken)
    return given


def admissible(routes):
    """A 422 naming each route an instance could not hold to one tenant: a rule no hold can keep,
    a wildcard host, a route that answers on any host (where no domain gave it one)."""
    refused = []
    for index, route in enumerate(routes):
        if route.get("unheld"):
            refused.append(route["unheld"])
        elif route["host"] is None:
            refused.append(
                f"{place(route, index, 'host')}: names no host, so it would answer on every host: give it one "
                "(or, for x-routes, the profile a cluster.domain)."
            )
        elif route["host"].startswith("*."):
            refused.append(
                f"{place(route, index, 'host')}: {route['host']!r} is a wildcard, which no one instance holds."
            )
    if refused:
        raise Invalid({"routes": refused[:MOST]})


def router_name(project, route, index):
    """`<project>-<service>-<index>`, as Traefik names a router (letters, digits, `-` and `_`)."""
    return re.sub(r"[^A-Za-z0-9_-]+", "-", f"{project}-{route['service']}-{index}")


def traefik_rule(route):
    """The rule of a route: Host(`h`) && PathPrefix(`/p`), either part where it applies."""
    parts = [f"Host(`{route['host']}`)"] if route["host"] else []
    if route["path"] != "/" or not parts:
        parts.append(f"PathPrefix(`{route['path']}`)")
    return " && ".join(parts)


def labelled(text, routes, project, conventions=None):
    """A rendered Compose file with each `x-routes` route written as Traefik labels on its service
    (routes read from labels are there already), and what the proxy's `conventions` ask of every
    routed service (app/definitions/proxy.py); every other byte as written."""
    own = [(index, route) for index, route in enumerate(routes) if route["router"] is None]
    if not own and not (conventions and routes):
        return text
    document = next(doc for doc in yamlguard.compose(text) if isinstance(doc, yaml.MappingNode))
    services = node_at(document, "services")
    labels, routed = {}, {}
    for index, route in own:
        router = router_name(project, route, index)
        pairs = {
            "traefik.enable": "true",
            f"traefik.http.routers.{router}.rule": traefik_rule(route),
            f"traefik.http.routers.{router}.service": router,
            f"traefik.http.services.{router}.loadbalancer.server.port": str(route["port"]),
        }
        if route["tls"]:
            pairs[f"traefik.http.routers.{router}.tls"] = "true"
        pairs.update(proxy.router_labels(router, route["tls"], conventions or {}))
        labels.setdefault(route["service"], {}).update(pairs)
    for route in routes:
        routed.setdefault(route["service"], set()).add(route["port"])
        if conventions:
            labels.setdefault(route["service"], {}).update(proxy.service_labels(conventions))
    found = [_edit(text, node_at(services, name), pairs) for name, pairs in labels.items() if pairs]
    found += proxy.edits(text, document, routed, conventions) if conventions else []
    out, at = [], 0
    for start, end, inserted in sorted(found):
        out += [text[at:start], inserted]
        at = end
    return "".join(out) + text[at:]


def _edit(text, service, pairs):
    """(start, end, text) putting `pairs` in the service's labels, whichever form they have."""
    labels = node_at(service, "labels")
    if isinstance(labels, yaml.SequenceNode):
        items = [json.dumps(f"{key}={value}") for key, value in pairs.items()]
        if labels.flow_style or not labels.value:
            at = text.index("[", labels.start_mark.index) + 1
            return at, at, ", ".join(items) + (", " if labels.value else "")
        first = labels.value[0]
        indent = "\n" + " " * (first.start_mark.column - 2)
        return first.start_mark.index, first.start_mark.index, "".join(f"{item}{indent}- " for item in items)
    written = [f"{json.dumps(key)}: {json.dumps(value)}" for key, value in pairs.items()]
    if isinstance(labels, yaml.MappingNode):
        return put_first(text, labels, written)
    if labels is not None:  # `labels:` with no value
        return labels.start_mark.index, labels.end_mark.index, f" {{{', '.join(written)}}}"
    return put_first(text, service, [f"labels: {{{', '.join(written)}}}"])
