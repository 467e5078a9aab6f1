"""How Docker Compose loads a file before it judges it (compose.RELEASE): text cast where Compose
wants a number or a boolean, `extends` within the file merged in, the lists whose entries Compose
keeps unique by a key (the last entry of a key wins, in the place of the first), volumes' short
syntax, the dependencies a service implies, and which services `docker compose up` starts. Why
each: docs/definitions.md, "Compose, as Docker Compose reads it"."""

import ipaddress
import posixpath
import re
from functools import lru_cache

from app.definitions.placeholders import Unresolved, as_unset, decided
from app.definitions.schemas import listed, mapping

OVERRIDDEN = {"command", "entrypoint", "test"}  # lists `extends` replaces; it appends the others
# A service's fields `extends` merges as mappings, a listed name given this value
MAPPED = {"depends_on": {"condition": "service_started", "required": True}, "networks": None, "models": None}
ANY_ADDRESS = "0.0.0.0"  # noqa: S104 (a port's host_ip when it names none: a key, not a binding)
NAMESPACES = ("network_mode", "ipc", "pid", "uts", "cgroup")  # `service:NAME` shares one's namespace
IMPLYING = frozenset({"links", "volumes_from", *NAMESPACES})  # fields that may imply a dependency
CACHED_SPECS, MAX_CACHED_SPEC = 4096, 256  # volume specs parse_volume remembers, and the longest
MAX_PORT = 65535
_PLAIN_PORT = re.compile(r"(?:([0-9]{1,5}):)?([0-9]{1,5})(?:/tcp)?")


def tree(paths):
    """{path: rule} as nested mappings, a node's own rule under ""."""
    root = {}
    for path, rule in paths.items():
        node = root
        for key in path:
            node = node.setdefault(key, {})
        node[""] = rule
    return root


def walk(node, rules, path, apply):
    """`node` with `apply(value, rule, path)` done where `rules` has one (`*` any key, `[]` any
    item); mappings and lists are copied on the way only where something changed. A path is
    (parent's path, key), joined by `dotted` only for a problem: this runs on every write."""
    if "" in rules:
        node = apply(node, rules[""], path)
    if isinstance(node, dict):
        every = rules.get("*")
        keys = node if every else [key for key in node if key in rules]
    elif isinstance(node, list) and "[]" in rules:
        every, keys = rules["[]"], range(len(node))
    else:
        return node
    changed = node
    for key in keys:
        value = node[key]
        new = walk(value, every or rules[key], (path, key), apply)
        if new is not value:
            changed = changed if changed is not node else (dict(node) if isinstance(node, dict) else list(node))
            changed[key] = new
    return changed


def dotted(path):
    """A path of `walk` as the text a problem names it by (`services.web.ports.0`)."""
    parts = []
    while isinstance(path, tuple):
        path, key = path
        parts.append(str(key))
    return ".".join([path, *reversed(parts)] if path else reversed(parts))


def _integer(text):
    """a whole number"""
    if not re.fullmatch(r"[+-]?[0-9]{1,19}", text) or not -(2**63) <= int(text) < 2**63:
        raise ValueError(text)
    return int(text)


def _number(text):
    """a number"""
    if not re.fullmatch(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?|[+-]?(?i:inf|infinity|nan)", text):
        raise ValueError(text)
    return float(text)


def _boolean(text):
    """true or false (or YAML 1.1's y, yes, on, n, no, off)"""
    word = text.lower()
    if word not in ("true", "y", "yes", "on", "false", "n", "no", "off"):
        raise ValueError(text)
    return word in ("true", "y", "yes", "on")


# Where Compose casts text (what a variable gives) to the type it wants; `*` is any key, `[]` any
# item. cpus, scale and deploy.replicas are cast too, by the quantities the measure reads them with.
CASTS = {
    **dict.fromkeys(
        [
            ("services", "*", key)
            for key in (
                "cpu_count",
                "cpu_period",
                "cpu_quota",
                "cpu_rt_period",
                "cpu_rt_runtime",
                "cpu_shares",
                "oom_score_adj",
                "pids_limit",
            )
        ]
        + [
            ("services", "*", *path)
            for path in (
                ("deploy", "update_config", "parallelism"),
                ("deploy", "rollback_config", "parallelism"),
                ("deploy", "restart_policy", "max_attempts"),
                ("deploy", "placement", "max_replicas_per_node"),
                ("healthcheck", "retries"),
                ("ports", "[]", "target"),
                ("ulimits", "*"),
                ("ulimits", "*", "hard"),
                ("ulimits", "*", "soft"),
            )
        ],
        _integer,
    ),
    **dict.fromkeys(
        [
            ("services", "*", "cpu_percent"),
            ("services", "*", "deploy", "update_config", "max_failure_ratio"),
            ("services", "*", "deploy", "rollback_config", "max_failure_ratio"),
        ],
        _number,
    ),
    **dict.fromkeys(
        [
            ("services", "*", *path)
            for path in (
                ("init",),
                ("healthcheck", "disable"),
                ("oom_kill_disable",),
                ("privileged",),
                ("read_only",),
                ("stdin_open",),
                ("tty",),
                ("volumes", "[]", "read_only"),
                ("volumes", "[]", "volume", "nocopy"),
            )
        ]
        + [("networks", "*", key) for key in ("external", "internal", "attachable", "enable_ipv4", "enable_ipv6")]
        + [(kind, "*", "external") for kind in ("volumes", "secrets", "configs")],
        _boolean,
    ),
}
CAST_TREE = tree(CASTS)


def cast(doc, found):
    """`doc` with the text at CASTS cast as Compose casts it; what it cannot cast is added to
    `found` (and kept as written)."""

    def apply(value, to, path):
        if not decided(value):
            return value
        try:
            return to(value)
        except ValueError:
            found.append(f"{dotted(path)}: Compose cannot read {value[:40]!r} as {to.__doc__}.")
            return value

    return walk(doc, CAST_TREE, "", apply)


class LoadError(ValueError):
    """An entry Compose cannot read while it loads the file (a malformed volume, a missing key)."""


def _text(value):
    if isinstance(value, str):
        return value
    raise LoadError(f"a {type(value).__name__} where Compose expects text.")


def _key_value(entry):
    """`KEY=value` by its key, anything else by itself."""
    return _text(entry).partition("=")[0]


def _volume(entry):
    if isinstance(entry, dict):
        return _target(entry, "volume")
    return parse_volume(entry)[2] if isinstance(entry, str) else ""


def _device(entry):
    if isinstance(entry, dict):
        return _target(entry, "device")
    parts = entry.split(":") if isinstance(entry, str) else [""]
    return parts[0] if len(parts) == 1 else parts[1]


def _target(entry, kind):
    if not isinstance(entry.get("target"), str):
        raise LoadError(f"the {kind} has no mount target.")
    return entry["target"]


def _expose(entry):
    if isinstance(entry, int) and not isinstance(entry, bool):
        return str(entry)
    return _text(entry)


def _mount(folder):
    def key(entry):
        if isinstance(entry, dict):
            return entry["target"] if "target" in entry else f"{folder}/{entry.get('source')}"
        return f"{folder}/{_text(entry)}"

    return key


def _port(entry):
    if isinstance(entry, float):
        raise LoadError("a port must be a whole number or text, not a float (Compose: invalid type float64 for port).")
    if isinstance(entry, int) and not isinstance(entry, bool):
        return port_spec(str(entry))
    if isinstance(entry, dict):
        if "target" not in entry:
            raise LoadError("the port has no target.")
        host, protocol = entry.get("host_ip", ANY_ADDRESS), entry.get("protocol", "tcp")
        return host, entry.get("published"), entry["target"], protocol
    if isinstance(entry, Unresolved):
        return entry  # unknown until its variables are set
    return port_spec(entry) if isinstance(entry, str) else ""


def port_spec(spec):
    """`spec` if it is a port's short syntax as Docker reads it (`[ip:][host:]container[/protocol]`,
    ports or ranges of them, 1-65535 for the container's); else LoadError with Docker's words."""
    plain = _PLAIN_PORT.fullmatch(spec)  # `8080:80`, `5432`: nearly every port a file declares
    if plain and 0 < int(plain[2]) <= MAX_PORT and int(plain[1] or 0) <= MAX_PORT:
        return spec
    return _port_of_text(spec)


def _port_of_text(spec):
    """port_spec of any text, as ParsePortSpec reads it."""
    parts = spec.split(":")
    ip, host = (":".join(parts[:-2]), parts[-2]) if len(parts) > 2 else ("", parts[0] if len(parts) == 2 else "")
    container, _, protocol = parts[-1].partition("/")
    protocol = protocol if protocol or not container else "tcp"
    ip = ip[1:].partition("]")[0] if ip.startswith("[") and "]" in ip else ip
    try:
        if ip:
            ipaddress.ip_address(ip)
    except ValueError:
        raise LoadError(f"{spec[:80]!r}: invalid IP address: {ip[:40]}.") from None
    start, end = _port_range(container, "containerPort", spec)
    if start == 0:
        raise LoadError(f"{spec[:80]!r}: the port has no target.")
    if host:
        first, last = _port_range(host, "hostPort", spec)
        if end - start not in (0, last - first):
            raise LoadError(f"{spec[:80]!r}: invalid ranges specified for container and host ports.")
    if protocol.lower() not in ("tcp", "udp", "sctp"):
        raise LoadError(f"{spec[:80]!r}: invalid proto: {protocol[:20]}.")
    return spec


def published(service):
    """The host ports a service of a file Compose accepts publishes, as (port, protocol) pairs, one
    after the other (a range may hold thousands):
    the short syntax's host part (`8080:80`, `127.0.0.1:8000-8001:80-81/udp`) and the long one's
    `published`; a port without one is given an ephemeral port, which nobody holds, and one a
    variable still stands in (a template not yet rendered) is not known yet."""
    for entry in service.get("ports") or ():
        if isinstance(entry, dict):
            host, protocol = str(entry.get("published") or ""), str(entry.get("protocol") or "tcp")
        else:
            parts = str(entry).split(":")
            host, protocol = (parts[-2] if len(parts) > 1 else ""), (parts[-1].partition("/")[2] or "tcp")
        try:
            first, last = _port_range(host, "hostPort", host) if host else (1, 0)
        except LoadError:
            continue
        yield from ((port, protocol.lower()) for port in range(first, last + 1))


def _port_range(text, part, spec):
    """(first, last) of a port or a range of ports (`8000-8010`), as Docker's ParsePortRange."""
    first, dash, last = text.partition("-")
    bounds = [first, last] if dash else [first]
    if not all(bound.isascii() and bound.isdigit() and int(bound) <= MAX_PORT for bound in bounds):
        raise LoadError(f"{spec[:80]!r}: invalid {part}: {text[:40]}.")
    if int(bounds[-1]) < int(first):
        raise LoadError(f"{spec[:80]!r}: invalid {part}: {text[:40]}.")
    return int(first), int(bounds[-1])


def _env_file(entry):
    if isinstance(entry, dict):
        if "path" not in entry:
            raise LoadError("the env_file has no path.")
        return entry["path"]
    return entry if isinstance(entry, str) else ""


# A service's lists Compose makes unique, and the key of an entry
UNIQUE = {
    **dict.fromkeys(
        [
            ("annotations",),
            ("build", "args"),
            ("build", "additional_contexts"),
            ("build", "platform"),
            ("build", "tags"),
            ("build", "labels"),
            ("cap_add",),
            ("cap_drop",),
            ("deploy", "labels"),
            ("dns",),
            ("dns_opt",),
            ("dns_search",),
            ("environment",),
            ("labels",),
            ("links",),
            ("profiles",),
            ("sysctls",),
            ("tmpfs",),
        ],
        _key_value,
    ),
    ("devices",): _device,
    ("configs",): _mount(""),
    ("env_file",): _env_file,
    ("expose",): _expose,
    ("ports",): _port,
    ("secrets",): _mount("/run/secrets"),
    ("volumes",): _volume,
}
UNIQUE_TREE = tree(UNIQUE)


def unique(service, where, found):
    """`service` with each list of UNIQUE holding one entry per key; what cannot be keyed is added
    to `found` (the list is kept as written)."""

    def apply(entries, key, path):
        if not isinstance(entries, list):
            return entries
        kept = {}
        try:
            for index, entry in enumerate(entries):  # noqa: B007 (named in the problem)
                kept[id(entry) if isinstance(entry, Unresolved) else repr(key(entry))] = entry
        except LoadError as exc:
            found.append(f"{dotted(path)}.{index}: {exc}")
            return entries
        return list(kept.values()) if len(kept) < len(entries) else entries

    return service if UNIQUE_TREE.keys().isdisjoint(service) else walk(service, UNIQUE_TREE, where, apply)


def parse_volume(spec):
    """(type, source, target) of a volume's short syntax, as Compose reads it: parts split at
    colons, but not inside `${...}` nor after a one-letter first part (a Windows drive); a source
    that is a path (`.`, `/`, `~`, `\\\\`, a drive) is a bind mount, anything else a named volume.
    Specs of usual length are remembered (every write reads its volumes twice); a long one is not,
    so that the cache holds at most CACHED_SPECS x MAX_CACHED_SPEC characters."""
    return _parse_volume_cached(spec) if len(spec) <= MAX_CACHED_SPEC else _parse_volume(spec)


def _parse_volume(spec):
    if not spec:
        raise LoadError("an empty volume.")
    if len(spec.encode()) <= 2:
        return "volume", "", spec
    parts, buffer, depth = [], "", 0
    for index, char in enumerate([*spec, None]):
        if char == "$" and spec[index + 1 : index + 2] == "{":
            depth += 1
        elif char == "}" and depth:
            depth -= 1
        elif char == ":" and _is_drive(buffer + char):
            pass
        elif char in (":", None) and not depth:
            if not buffer:
                raise LoadError(f"{spec[:80]!r} has an empty part between colons.")
            if len(parts) == 2 and char == ":":
                raise LoadError(f"{spec[:80]!r} has too many colons.")
            parts.append(buffer)
            buffer = ""
            continue
        buffer += char or ""
    if len(parts) == 1:
        return "volume", "", parts[0]
    source, target = (parts + ["", ""])[:2]
    return ("bind" if _is_path(source) else "volume"), source, target


_parse_volume_cached = lru_cache(maxsize=CACHED_SPECS)(_parse_volume)


def _is_path(source):
    return source.startswith((".", "/", "~", "\\\\")) or _is_drive(source[:2])


def _is_drive(text):
    """A Windows drive (`c:`), which Compose reads as part of a path, not as a separator."""
    return len(text) == 2 and text[0].isalpha() and text[1] == ":"


def volumes(service):
    """(index, type, source, target) of each volume of the service Compose mounts. Compose makes
    them unique twice: as written, then with the short syntax's targets cleaned (`/data/` is
    `/data`); the last of a target wins, in the place of the first."""
    kept = {}
    for index, entry in enumerate(listed(service.get("volumes"))):
        if isinstance(entry, Unresolved) or not isinstance(entry, (str, dict)):
            continue
        try:
            kind, source, target = (
                parse_volume(entry)
                if isinstance(entry, str)
                else (entry.get("type"), entry.get("source") or "", entry.get("target"))
            )
        except LoadError:
            continue
        cleaned = _clean(target) if isinstance(target, str) else target
        key = repr(cleaned if isinstance(entry, str) else target)
        place = kept[key][0] if key in kept else index
        kept[key] = (place, kind, source, cleaned)
    return list(kept.values())


def _clean(path):
    """A path as Go's path.Clean gives it (Compose cleans volume targets)."""
    cleaned = posixpath.normpath(path)
    return "/" + cleaned.lstrip("/") if cleaned.startswith("/") else cleaned


def dependencies(service):
    """The services a service depends on, each with whether it is required: `depends_on`, and the
    ones Compose adds for `links`, `service:NAME` namespaces and `volumes_from` (a name that waits
    for a variable is left out: it is unknown)."""
    found = {} if IMPLYING.isdisjoint(service) else dict.fromkeys([one for one in _implied(service) if one], True)
    declared = service.get("depends_on")
    if isinstance(declared, dict):
        found |= {str(name): mapping(item).get("required", True) for name, item in declared.items()}
    elif isinstance(declared, list):
        found |= {str(name): True for name in declared if not isinstance(name, Unresolved)}
    return found


def _implied(service):
    implied = []
    for link in listed(service.get("links")):
        parts = _known(link).split(":")
        implied.append(parts[0] if len(parts) == 2 else ":".join(parts))
    for key in [key for key in NAMESPACES if key in service]:
        if _known(service[key]).startswith("service:"):
            implied.append(service[key][len("service:") :])
    for one in listed(service.get("volumes_from")):
        if not _known(one).startswith("container:"):
            implied.append(_known(one).split(":")[0])
    return implied


def _known(value):
    """A name as text; "" where it is not text or waits for a variable."""
    return "" if isinstance(value, Unresolved) or not isinstance(value, str) else value


def _merged(base, override, service=True):
    """`override` over `base` as `extends` merges them: mappings key by key, lists appended (but
    OVERRIDDEN), anything else replaced; a service's MAPPED fields merged as mappings whichever
    form each is written in."""
    merged = dict(base)
    for key, value in override.items():
        earlier = base.get(key)
        if service and key in MAPPED and key in base:
            value, earlier = _as_mapping(value, MAPPED[key]), _as_mapping(earlier, MAPPED[key])
        if isinstance(value, dict) and isinstance(earlier, dict):
            merged[key] = _merged(earlier, value, service=False)
        elif isinstance(value, list) and isinstance(earlier, list) and key not in OVERRIDDEN:
            merged[key] = earlier + value
        else:
            merged[key] = value
    return merged


def _as_mapping(value, default):
    """A list of names as the mapping Compose merges it as (each name with `default`)."""
    if not isinstance(value, list):
        return value
    return {name: dict(default) if default else None for name in value if isinstance(name, str)}


def services(doc, found):
    """The file's services by name, each with the service it `extends` merged in and its lists
    made unique; what Compose cannot follow or key is added to `found`."""
    declared = {
        name: service or {}
        for name, service in mapping(mapping(doc).get("services")).items()
        if isinstance(service, dict) or service is None
    }
    resolved = {}

    def resolve(name):
        """The service with its bases merged in, followed without recursion (a chain may be long)."""
        if "extends" not in declared[name]:
            return declared[name]
        chain, seen = [], set()
        while name not in resolved:
            service, extends = declared[name], declared[name].get("extends")
            base = extends if isinstance(extends, str) else mapping(extends).get("service")
            problem = None
            if isinstance(extends, dict) and "file" in extends:
                problem = "extends.file: a blueprint is one file; `extends` may name a service of this file only."
            elif extends is not None and not (isinstance(base, str) and base in declared):
                problem = f"extends: no service {str(base)[:60]!r} in this file."
            elif base == name or base in seen:
                problem = "extends: the services extend each other in a cycle."
            if extends is None or problem:
                found.extend([f"services.{name}.{problem}"] if problem else [])
                resolved[name] = service
                break
            chain.append(name)
            seen.add(name)
            name = base
        merged = resolved[name]
        for child in reversed(chain):
            merged = resolved[child] = _merged(
                merged, {key: value for key, value in declared[child].items() if key != "extends"}
            )
        return resolved[chain[0]] if chain else merged

    return {name: unique(resolve(name), f"services.{name}", found) for name in declared}


def started(service):
    """Whether `docker compose up`, with no profile named, starts the service."""
    return not service.get("profiles")


def claimed(top_volumes, started_services):
    """The named volumes that a conversion makes claims of (an external one is expected to exist):
    those the started services mount, each once, sorted; what a fit for a cluster counts."""
    keys = set()
    for service in started_services:
        for entry in listed(service.get("volumes")):
            kind, source, target = read_volume(as_unset(entry))[:3]
            if claims(kind, source, target):
                keys.add(source)
    return sorted(key for key in keys if not mapping(top_volumes.get(key)).get("external"))


def claims(kind, source, target):
    """Whether a mount (as `read_volume` reads it) is of a named volume, which a claim holds."""
    return kind == "volume" and bool(source) and target is not None


def read_volume(entry):
    """(type, source, target, read-only, sub path) of a `volumes` entry, its target cleaned as
    Compose cleans it (`/data/` is `/data`); target None for one Compose would have refused."""
    if isinstance(entry, dict):
        target = entry.get("target")
        if not isinstance(target, str):
            return None, None, None, False, None
        sub_path = mapping(entry.get("volume")).get("subpath")
        kind = entry.get("type", "volume")
        return kind, entry.get("source") or "", posixpath.normpath(target), bool(entry.get("read_only")), sub_path
    if not isinstance(entry, str):
        return None, None, None, False, None
    try:
        kind, source, target = parse_volume(entry)
    except LoadError:  # `${DATA}:/data` with DATA unset: Compose needs it set
        parts = entry.split(":")
        if len(parts) < 2 or parts[0] or not parts[1].startswith("/"):
            return None, None, None, False, None
        kind, source, target = "unset", "", parts[1]
    mode = entry.rsplit(":", 1)[1] if entry.count(":") >= 2 else ""
    return kind, source, posixpath.normpath(target), "ro" in mode.split(","), None
