"""Dokploy templates, as its catalog publishes them (a folder per template: `docker-compose.yml`,
`template.toml`, `meta.json`). The Compose file is the definition. `template.toml`'s `[variables]`
become parameters: a value that is one of Dokploy's helpers (`${password:32}`, `${base64:64}`,
`${hash:8}`, `${uuid}`, `${jwt:16}`, `${username}`) a generated one, `${domain}` and `${email}`
required ones, any other plain value a parameter with that default; a value naming other variables
is derived from them, written out where it is used. `[config] env` gives the values the Compose
file's variables take, written into the file in their place; `[[config.mounts]]` the contents of
the files its services mount, carried as Compose `configs`; `[[config.domains]]`, which Dokploy's
proxy routes, become routes (`x-routes`); `meta.json` gives name, version, description and tags. As Dokploy reads
them, a `${...}` that names neither a helper nor a variable is left as written."""

import json
import posixpath
import re
import tomllib

from app.definitions import placeholders
from app.definitions import routes as routes_rule
from app.definitions.parameters import MAX_GENERATED, NAME
from app.definitions.placeholders import ESCAPED, TemplateError
from app.definitions.routes import EXTENSION as ROUTES
from app.imports import compose_parts, variables
from app.imports.candidate import Candidate, checked_with, parameters, tags
from app.model import dns, yamlguard
from app.model.yamlguard import YamlError

COMPOSE_FILE, TEMPLATE_FILE, META_FILE = "docker-compose.yml", "template.toml", "meta.json"
# what TOML 1.0 refuses that Dokploy's templates are found to hold (tomllib's words), and how to write it
TOML_HINTS = {
    "Cannot mutate immutable namespace": (
        "a key given a value (`mounts = []`) is written again as a table (`[[config.mounts]]`);"
        " TOML takes one of the two: remove the value"
    ),
    "Unescaped '\\'": (
        "a backslash between double quotes starts an escape: write it twice (`\\\\`),"
        " or put the text between single quotes (a literal string, `'''...'''`)"
    ),
}
REFERENCE = re.compile(r"\$\{([^}]*)\}")
HELPER = re.compile(r"(password|base64|hash|jwt|uuid|username|email|domain|randomPort|timestamp[sm]*)(?::(.*))?")
MAX_DEPTH = 10  # variables naming variables
HOSTED = re.compile(r"\$\{([A-Za-z0-9_]+)\}")  # a route's host that is a parameter
OWN_DOMAIN = "Where the app answers; empty: the team's domain (the profile's cluster.domain)."
DOKPLOY_NETWORK = "dokploy-network"  # its proxy's network, which a template joins to be routed
FILES_DIRECTORY = "files"  # where Dokploy writes a template's mounts, beside its Compose file
DOKPLOY_JWT_EXPIRY = 1_893_456_000  # 2030-01-01, the expiry Dokploy's own JWTs carry
UUID_PATTERN = "[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}"
GIVEN = {  # what a team gives, and the example a template is checked with meanwhile
    "domain": ({"type": "string", "title": "Domain", "format": "hostname", "x-role": "domain"}, "app.example.com"),
    "email": ({"type": "string", "title": "Email address", "format": "email"}, "admin@example.com"),
    "randomPort": ({"type": "string", "title": "Port", "pattern": "^[0-9]{1,5}$"}, "8080"),
}


def candidates(document, files, defaults):
    """A Candidate per template of `document` ({id: {file name: text}}), in its order."""
    if not isinstance(document, dict) or not all(isinstance(entry, dict) for entry in document.values()):
        raise ValueError(
            f'must map each template\'s id to its files: {{"<id>": {{"{COMPOSE_FILE}": ..., '
            f'"{TEMPLATE_FILE}": ..., "{META_FILE}": ...}}}}.'
        )
    return [_candidate(str(key), entry) for key, entry in document.items()]


def _candidate(key, entry):
    found = Candidate(key, key)
    texts = _texts(key, entry, found)
    if texts is None:
        return found
    meta = _read(texts[META_FILE], json.loads, META_FILE, found)
    template = _read(texts[TEMPLATE_FILE], tomllib.loads, TEMPLATE_FILE, found)
    if found.problems:
        return found
    found.title = str(meta.get("name") or key)[:200]
    config = template.get("config") if isinstance(template.get("config"), dict) else {}
    scope = _Scope(template.get("variables"), found)
    text = _definition(texts[COMPOSE_FILE], config, scope, found)
    if text is None:
        return found
    try:
        named = [name for name in variables.used(text) if name in scope.properties]
        given = {name: scope.properties[name] for name in named if "default" not in scope.properties[name]}
        defaults = {name: scope.properties[name]["default"] for name in named if name not in given}
        properties, required, notes = variables.inferred(text, defaults, given, unset_optional=True)
    except (TemplateError, YamlError) as exc:
        found.problems.append(f"{COMPOSE_FILE}: {exc}")
        return found
    found.notes += notes
    for name in scope.required:
        if name in properties and "examples" not in properties[name]:
            checked_with(name, properties, required, found.notes, scope.examples[name])
    found.fields = {
        "name": found.title,
        "description": str(meta.get("description") or "")[:10_000],
        "version": str(meta.get("version") or "").strip()[:64] or None,
        "blueprintType": "compose",
        "yml": text,
        "tags": tags(meta["tags"] if isinstance(meta.get("tags"), list) else []),
        "parameters": parameters(properties, required),
    }
    return found


def _texts(key, entry, found):
    """{file name: its text or None} of a template, or None when it is skipped or has a file that
    is not a text."""
    texts = {name: entry.get(name) for name in (COMPOSE_FILE, TEMPLATE_FILE, META_FILE)}
    for name, text in texts.items():
        if text is not None and not isinstance(text, str):
            found.problems.append(f"{key}.{name}: not a text.")
    if found.problems:
        return None
    if texts[COMPOSE_FILE] is None:
        found.skipped = f"no {COMPOSE_FILE}: nothing to deploy."
        return None
    return texts


def _definition(compose_text, config, scope, found):
    """The Compose file as the blueprint keeps it: its mounts written in, the template's env
    substituted, its domains noted; None when it is skipped or has a problem."""
    env = _env(config.get("env"), scope)
    definition = compose_parts.read(compose_text, COMPOSE_FILE, found)
    if definition is None:
        return None
    _mounted(definition, config.get("mounts"), scope, found)
    try:  # a mounted file's text too: Compose interpolates a config's content as the rest
        definition = _substituted(definition, env, (), found)
    except TooLarge:
        found.problems.append(f"{COMPOSE_FILE}: {TooLarge.__doc__}")
        return None
    _env_file_read(definition, env, found)
    _routed(definition, config.get("domains"), scope, found)
    _hosts_optional(definition, scope)
    if scope.unsupported:
        found.skipped = "uses " + "; ".join(sorted(scope.unsupported)) + "."
    if found.skipped or found.problems:
        return None
    text = compose_parts.written(definition)
    if len(text.encode()) > yamlguard.MAX_BYTES:
        mounts = config.get("mounts") if isinstance(config.get("mounts"), list) else []
        found.problems.append(
            f"{COMPOSE_FILE} ({len(compose_text.encode()):,} bytes) is {len(text.encode()) // 1024} KiB with the "
            f"{len(mounts)} files {TEMPLATE_FILE} mounts written into it as configs; a definition holds at most "
            f"{yamlguard.MAX_BYTES // 1024} KiB: mount fewer or smaller files."
        )
        return None
    return text


def _read(text, parse, name, found):
    """The object a template's file holds ({} when it has none); a problem when it holds none."""
    if text is None:
        return {}
    try:
        value = parse(text)
    except ValueError as exc:  # json and tomllib errors are ValueErrors
        said = str(exc)[:300]
        hints = [hint for known, hint in TOML_HINTS.items() if name == TEMPLATE_FILE and known in said]
        found.problems.append(f"{name}: {said}" + "".join(f": {hint}." for hint in hints))
        return {}
    except RecursionError:  # the parsers recurse: Python stops them at its limit
        value = None
    if value is None or yamlguard.nested_deeper(value):
        found.problems.append(f"{name}: nested deeper than {yamlguard.MAX_DEPTH} levels.")
        return {}
    if not isinstance(value, dict):
        found.problems.append(f"{name}: not an object.")
        return {}
    return value


class _Scope:
    """A template's `[variables]`, each a parameter (a helper's generated value, a value a team
    gives, a default) or derived from others, read as Dokploy reads them."""

    def __init__(self, declared, found):
        self.declared = {
            str(name): value if isinstance(value, str) else _text(value)
            for name, value in (declared.items() if isinstance(declared, dict) else ())
        }
        self.found, self.properties, self.required, self.examples = found, {}, [], {}
        self.unsupported, self._derived, self._expanding = set(), {}, []

    def expanded(self, raw, owner):
        """`raw` (a value as template.toml writes it) as template text: each variable a parameter's
        placeholder or what it derives from, each helper a generated parameter's placeholder, the
        rest as written, `$` doubled. Longer than a definition may be: a problem, and ""."""
        out, at = _Bounded(), 0
        try:
            for match in REFERENCE.finditer(raw):
                out.add(raw[at : match.start()].replace("$", "$$"))
                out.add(self._reference(match[1], match[0], owner, whole=match[0] == raw))
                at = match.end()
            out.add(raw[at:].replace("$", "$$"))
        except TooLarge:
            self.found.problems.append(f"{TEMPLATE_FILE}: {owner or 'a value'}: {TooLarge.__doc__}")
            return ""
        return out.text()

    def _reference(self, inside, written, owner, whole):
        """What `${inside}` stands for: a helper first, as Dokploy tries them first, then a variable;
        anything else is left as written (a Compose placeholder as one, other text as text)."""
        helper = HELPER.fullmatch(inside)
        if helper is None and inside in self.declared:
            return self._variable(inside)
        if helper is None:
            return written if _is_placeholder(written) else written.replace("$", "$$")
        base = re.sub(r"[^A-Za-z0-9_]", "_", owner or "value")[:50]  # a parameter's name, whatever the key's
        name = owner if whole and NAME.fullmatch(owner or "") else f"{base}_{len(self.properties) + 1}"
        schema = self._helper(helper[1], helper[2], name, written)
        if schema is None:
            return written.replace("$", "$$")
        self.properties[name] = schema
        return f"${{{name}}}"

    def _variable(self, name):
        """The placeholder of variable `name`, or what it derives from, written out."""
        raw = self.declared[name]
        if name in self.properties or name in self._derived:
            return f"${{{name}}}" if name in self.properties else self._derived[name]
        if name in self._expanding or len(self._expanding) >= MAX_DEPTH:
            self.found.problems.append(
                f"{TEMPLATE_FILE}: variables.{name}: names itself, or variables more than {MAX_DEPTH} deep."
            )
            return ""
        if "${" not in raw and NAME.fullmatch(name):
            self.properties[name] = {"type": "string", "default": raw}
            return f"${{{name}}}"
        self._expanding.append(name)
        text = self.expanded(raw, name)
        self._expanding.pop()
        if name not in self.properties:
            self._derived[name] = text
        return self._derived.get(name, text)

    def _jwt(self, argument, name, written):
        """`${jwt:SECRET[:PAYLOAD]}`: a JWT signed with the value of variable SECRET, which must be a
        parameter of its own (Dokploy signs with the variable's text otherwise: its own, a constant)."""
        secret, _, payload = argument.partition(":")
        if secret in self.declared and secret != name:
            self._variable(secret)
        signer = self.properties.get(secret)
        if (
            secret == name
            or signer is None
            or signer.get("type") != "string"
            or isinstance(signer.get("x-generate"), dict)
        ):
            self.unsupported.add(f"{written}: a JWT signed with a fixed text, not a value of its own")
            return None
        payload = self.declared.get(payload, payload)
        return {"type": "string", "writeOnly": True, "x-generate": _jwt_of(secret, payload)}

    def _helper(self, helper, argument, name, written):
        """The schema of a parameter generated as Dokploy's `helper` generates it, or given by the
        team; None for one that needs the platform (named in `unsupported`) or a value longer than
        a generated one may be (a problem)."""
        if helper in GIVEN:
            schema, example = GIVEN[helper]
            self.required.append(name)
            self.examples[name] = example
            return dict(schema)
        if helper == "jwt" and argument and not argument.isdigit():
            return self._jwt(argument, name, written)
        generated = _generated(helper, argument)
        if generated is None:
            self.unsupported.add(f"{written}, which Dokploy works out when it deploys")
            return None
        pattern, count = generated
        if count > MAX_GENERATED:
            self.found.problems.append(
                f"{TEMPLATE_FILE}: {written} makes {count} characters; a generated value holds at most {MAX_GENERATED}."
            )
            return None
        return {"type": "string", "writeOnly": True, "x-generate": pattern}


def _jwt_of(secret, payload):
    """What Dokploy signs: its issuer and expiry (2030-01-01), then the payload's claims."""
    return {"jwt": {"secret": secret, "claims": {"iss": "dokploy", "exp": DOKPLOY_JWT_EXPIRY, **_claims(payload)}}}


def _claims(payload):
    """The claims of a JWT's payload (JSON of an object), those of a kind a generated JWT holds."""
    try:
        parsed = json.loads(payload) if payload.strip().startswith("{") else None
    except (ValueError, RecursionError):  # Dokploy signs no payload then
        parsed = None
    allowed = (str, int, bool)
    return {key: value for key, value in (parsed or {}).items() if isinstance(value, allowed) and len(key) <= 64}


def _generated(helper, argument):
    """(x-generate pattern, length) of a value as Dokploy's `helper` generates it with `argument`,
    or None where it needs the platform (a JWT it signs, the time it deploys)."""
    number = int(argument) if argument and argument.isdigit() else None
    if argument is not None and number is None:
        return None
    if helper == "base64":  # N random bytes (32 unless given), four characters for each three
        full, rest = divmod(number or 32, 3)
        tail = ("", "[A-Za-z0-9+/]{2}={2}", "[A-Za-z0-9+/]{3}=")[rest]
        return (f"[A-Za-z0-9+/]{{{4 * full}}}" if full else "") + tail, 4 * (full + bool(rest))
    if helper == "uuid" and number is None:
        return UUID_PATTERN, 36
    alphabet, count = {
        "password": ("[a-z0-9]", number or 16),  # Dokploy lower-cases its passwords
        "hash": ("[0-9a-f]", number or 8),
        "jwt": ("[0-9a-f]", 2 * (number or 0)),  # ${jwt:N}: N random bytes, in hex; ${jwt} is signed
        "username": ("[a-z]", 8 if number is None else 0),
    }.get(helper, (None, 0))
    return (f"{alphabet}{{{count}}}", count) if alphabet and count else None


def _is_placeholder(written):
    """Whether `written` is one Compose placeholder (`${NAME:-default}`), which stays one."""
    try:
        parts = placeholders.parse(written, strict=True)
    except TemplateError:
        return False
    return len(parts) == 1 and not isinstance(parts[0], str) and parts[0] is not ESCAPED


def _text(value):
    """A TOML value that is not a string, as Dokploy writes it into a file."""
    return "true" if value is True else "false" if value is False else str(value)


def _env(env, scope):
    """{name: template text} of `[config] env` (a table, or a list of `NAME=value` lines)."""
    pairs = []
    if isinstance(env, dict):
        pairs = list(env.items())
    elif isinstance(env, list):
        for line in env:
            if isinstance(line, dict):
                pairs += list(line.items())
            elif isinstance(line, str) and "=" in line:
                pairs.append(tuple(line.split("=", 1)))
            else:
                shown = str(line)[:60]
                scope.found.notes.append(f"{TEMPLATE_FILE}: config.env: {shown!r} is not NAME=value, left out.")
    return {
        str(name).strip(): scope.expanded(value if isinstance(value, str) else _text(value), str(name).strip())
        for name, value in pairs
    }


class TooLarge(Exception):
    """with the variables written in, it is larger than a definition may be."""


class _Bounded:
    """Text built in parts, never longer than a definition may be (TooLarge): variables written
    into variables, and into a file, could otherwise grow it without bound."""

    def __init__(self, budget=None):
        self.parts, self.budget = [], budget if budget is not None else [yamlguard.MAX_BYTES]

    def add(self, text):
        self.budget[0] -= len(text)
        if self.budget[0] < 0:
            raise TooLarge
        self.parts.append(text)

    def text(self):
        return "".join(self.parts)


def _substituted(value, env, path, found, budget=None):
    """`value` (the Compose file read) with each variable `env` sets written in its place; the
    whole no larger than a definition may be (TooLarge)."""
    budget = budget if budget is not None else [yamlguard.MAX_BYTES]
    if isinstance(value, dict):
        return {key: _substituted(item, env, (*path, key), found, budget) for key, item in value.items()}
    if isinstance(value, list):
        return [_substituted(item, env, (*path, index), found, budget) for index, item in enumerate(value)]
    if not isinstance(value, str) or "$" not in value:
        return value
    try:
        out = _Bounded(budget)
        _written(placeholders.parse(value, strict=True), env, out)
        return out.text()
    except TemplateError as exc:
        found.problems.append(f"{COMPOSE_FILE}: {'.'.join(map(str, path))}: {exc}")
        return value


def _written(parts, env, out):
    """Adds to `out` the template text of `parts`, each placeholder of a name `env` sets resolved
    as Compose resolves it with that value."""
    for part in parts:
        if part is ESCAPED:
            out.add("$$")
        elif isinstance(part, str):
            out.add(part)
        elif part.name not in env:
            if part.operator:
                out.add(f"${{{part.name}{part.operator}")
                _written(part.argument, env, out)
                out.add("}")
            else:
                out.add(part.text)
        else:
            value, operator = env[part.name], part.operator
            if operator in (":+", "+"):
                if value or operator == "+":
                    _written(part.argument, env, out)
            elif operator == ":-" and not value:
                _written(part.argument, env, out)
            else:
                out.add(value)


def _mounted(definition, mounts, scope, found):
    """Each file `[[config.mounts]]` gives, where a service mounts it from Dokploy's `files`
    folder, carried as a Compose config with its content; the rest named in notes."""
    contents = {}
    for index, mount in enumerate(mounts if isinstance(mounts, list) else []):
        path, content = (mount.get(field) if isinstance(mount, dict) else None for field in ("filePath", "content"))
        if not isinstance(path, str) or not isinstance(content, str):
            found.notes.append(f"{TEMPLATE_FILE}: config.mounts.{index}: no filePath and content, which Dokploy reads.")
            continue
        contents[posixpath.normpath(path.lstrip("/"))] = scope.expanded(content, None)
    used = set()
    for name, service in definition["services"].items():
        if not isinstance(service, dict) or not isinstance(service.get("volumes"), list):
            continue
        kept = []
        for volume in service["volumes"]:
            source, target = _bind(volume)
            carried = _configs(source, target, contents) if source is not None else []
            if not carried:
                kept.append(volume)
                if source is not None:
                    found.notes.append(
                        f"services.{name}.volumes: {source} is a path Dokploy keeps beside the project; "
                        "mounted from the host as written."
                    )
                continue
            for path, at in carried:
                compose_parts.add_config(definition, service, path, contents[path], at)
                used.add(path)
        service["volumes"] = kept
        if not kept:
            del service["volumes"]
    for path in contents.keys() - used:
        found.notes.append(f"{TEMPLATE_FILE}: config.mounts: {path} is mounted by no service, left out.")


def _bind(volume):
    """(the path under Dokploy's files folder, the container path) of a bind mount from it, else
    (None, None)."""
    if isinstance(volume, str):
        source, _, rest = volume.partition(":")
        target = rest.split(":")[0]
    elif isinstance(volume, dict) and volume.get("type") == "bind":
        source, target = volume.get("source"), volume.get("target")
    else:
        return None, None
    if not isinstance(source, str) or not isinstance(target, str) or not target:
        return None, None
    parts = posixpath.normpath(source).split("/")
    while parts and parts[0] in (".", ".."):
        parts.pop(0)
    if len(parts) < 2 or parts[0] != FILES_DIRECTORY:
        return None, None
    return "/".join(parts[1:]), target


def _configs(source, target, contents):
    """(file path, container path) of each file given for `source` (a file, or a folder's files)."""
    if source in contents:
        return [(source, target)]
    below = sorted(path for path in contents if path.startswith(source.rstrip("/") + "/"))
    return [(path, posixpath.join(target, path[len(source.rstrip("/")) + 1 :])) for path in below]


def _env_file_read(definition, env, found):
    """`[config] env`, which Dokploy writes to the `.env` beside the Compose file, in the
    environment of each service whose `env_file` names that file (a value it sets itself kept),
    the `.env` left out: the blueprint has no file beside it."""
    for name, service in definition["services"].items():
        listed = service.get("env_file") if isinstance(service, dict) else None
        entries = [listed] if isinstance(listed, (str, dict)) else listed if isinstance(listed, list) else []
        kept = [one for one in entries if (one.get("path") if isinstance(one, dict) else one) not in (".env", "./.env")]
        if len(kept) == len(entries):
            continue
        environment = service.get("environment")
        if isinstance(environment, list):
            named = {str(item).partition("=")[0] for item in environment}
            environment += [f"{key}={value}" for key, value in env.items() if key not in named]
        else:
            environment = {**env, **(environment or {})}
        service["environment"] = environment
        if kept:
            service["env_file"] = kept
        else:
            del service["env_file"]
        found.notes.append(f"services.{name}.env_file: .env holds config.env, written into its environment.")


def _hosts_optional(definition, scope):
    """A domain the team would give (`${domain}`) that only a route's host is is optional, as
    Dokploy makes one up where none is given: left empty, the route answers on the team's domain."""
    hosts = {found[1] for route in definition.get(ROUTES, ()) if (found := HOSTED.fullmatch(route.get("host", "")))}
    rest = compose_parts.written({key: value for key, value in definition.items() if key != ROUTES})
    for name in hosts & set(scope.required):
        if f"${{{name}}}" not in rest:
            scope.required.remove(name)
            scope.examples.pop(name, None)
            scope.properties[name] = {"type": "string", "title": "Domain", "default": "", "description": OWN_DOMAIN}


def _routed(definition, domains, scope, found):
    """Each domain Dokploy's proxy routes to a service's port, as a route (`x-routes`: its host
    template text, a parameter's placeholder where a variable stands); its network left out,
    since Compose's own network joins the services."""
    routes = []
    for index, domain in enumerate(domains if isinstance(domains, list) else []):
        if not isinstance(domain, dict) or not domain.get("serviceName"):
            continue
        where = f"{TEMPLATE_FILE}: config.domains.{index}"
        service, port = str(domain["serviceName"]), domain.get("port")
        port = int(port) if isinstance(port, str) and port.isdigit() else port  # `port = "3002"`, as Dokploy reads it
        if service not in definition["services"] or isinstance(port, bool) or not isinstance(port, int):
            found.notes.append(f"{where}: {service}:{str(port)[:20]} is no service's port here; not routed.")
            continue
        route = {"service": service, "port": port}
        host = scope.expanded(domain["host"], "config.domains") if isinstance(domain.get("host"), str) else ""
        if routes_rule.PLACEHOLDER_HOST.fullmatch(host):  # `emqx.yourdomain.com`
            found.notes.append(f"{where}: {host[:60]!r} stands for a domain to give; routed on the team's domain.")
        elif "$" in host or dns.HOST.regex.fullmatch(host):
            route["host"] = host
        elif host:  # a template's slip: `host = "minio_domain"`, a variable's name without `${}`
            found.notes.append(f"{where}: {host[:60]!r} is no host name; routed on the team's domain instead.")
        if isinstance(domain.get("path"), str) and domain["path"] not in ("", "/"):
            route["path"] = domain["path"]
            if domain.get("stripPath"):
                found.notes.append(f"{where}: Dokploy strips {domain['path']} first; a route passes it on.")
        routes.append(route)
    if routes:
        definition[ROUTES] = routes
    _without_the_proxys_network(definition, found)


def _without_the_proxys_network(definition, found):
    """`definition` with Dokploy's proxy's network left out, at the top and in every service."""
    networks = definition.get("networks")
    if isinstance(networks, dict) and DOKPLOY_NETWORK in networks:
        del networks[DOKPLOY_NETWORK]
        if not networks:
            del definition["networks"]
        for service in definition["services"].values():
            joined = service.get("networks") if isinstance(service, dict) else None
            if isinstance(joined, list) and DOKPLOY_NETWORK in joined:
                joined.remove(DOKPLOY_NETWORK)
            elif isinstance(joined, dict):
                joined.pop(DOKPLOY_NETWORK, None)
            if joined in ([], {}):
                del service["networks"]
        found.notes.append(f"networks: {DOKPLOY_NETWORK}, the network of Dokploy's proxy, left out.")
