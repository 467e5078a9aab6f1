"""The parameters a Compose file's variables make (a `compose` import, a Portainer stack): each
variable the file's values use, its default from the `.env` file, else from the file's own
`:-`/`-`; `:?`/`?` makes it required; a whole plain value whose default reads as an integer, a
number or a boolean takes that type; a secret's name (PASSWORD, SECRET, TOKEN, KEY) without a
default is generated and write-only."""

import re

import yaml

from app.definitions import placeholders, routes, templates, traefik_rules
from app.imports.candidate import SECRET_PATTERN, checked_with
from app.model import yamlguard

SECRET = re.compile(r"PASSWORD|SECRET|TOKEN|KEY", re.IGNORECASE)
# A key another service issues, which only its user can know: asked for, never generated
EXTERNAL = re.compile(r"API_?KEY|ACCESS_KEY|CLIENT_(?:ID|SECRET)|AUTH_TOKEN|LICENSE_KEY|DSN$", re.IGNORECASE)
INTEGER = re.compile(r"[+-]?[0-9]{1,18}")
NUMBER = re.compile(r"[+-]?(?:[0-9]+\.[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
ENV_LINE = re.compile(r"(?:export\s+)?([A-Za-z_][A-Za-z0-9_.-]*)\s*=\s*(.*)")


def dotenv(text):
    """{name: value} of a `.env` file as Compose reads one: `NAME=value` lines, `export` allowed,
    `#` comments, values in single quotes taken as written, in double quotes with `\\n`, `\\"`
    and `\\\\` read; ValueError naming the line that is none of these."""
    found = {}
    for number, line in enumerate(text.splitlines(), 1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        match = ENV_LINE.fullmatch(line)
        if not match:
            raise ValueError(f"line {number} is not NAME=value.")
        found[match[1]] = _env_value(match[2], number)
    return found


def _env_value(raw, number):
    if raw[:1] in ("'", '"'):
        end = raw.find(raw[0], 1) if raw[0] == "'" else _closing_quote(raw)
        if end < 0:
            raise ValueError(f"line {number} has an unclosed quote.")
        inner = raw[1:end]
        if raw[0] == "'":
            return inner
        return re.sub(r"\\(.)", lambda m: {"n": "\n", "t": "\t"}.get(m[1], m[1]), inner)
    return re.split(r"\s+#", raw, maxsplit=1)[0].strip()


def _closing_quote(raw):
    at = 1
    while at < len(raw):
        if raw[at] == "\\":
            at += 2
            continue
        if raw[at] == '"':
            return at
        at += 1
    return -1


def used(text):
    """{name: [(placeholder, whole)]} of every variable the file's values use, in order of first
    use (`whole`: the plain scalar is that placeholder alone); TemplateError or YamlError."""
    uses = {}
    for document in yamlguard.compose(text):
        stack = [document] if document is not None else []
        while stack:
            node = stack.pop()
            if isinstance(node, yaml.MappingNode):
                stack.extend(value for _, value in reversed(node.value))
            elif isinstance(node, yaml.SequenceNode):
                stack.extend(reversed(node.value))
            elif "$" in node.value and node.tag == "tag:yaml.org,2002:str":
                parts = placeholders.parse(node.value, strict=True)
                sole = placeholders.sole(parts) if not node.style else None
                for placeholder in placeholders.placeholders(parts):
                    uses.setdefault(placeholder.name, []).append((placeholder, placeholder is sole))
    return uses


def hosts_alone(text):
    """The variables a Compose file uses only as a route's host: an `x-routes` entry's `host`, or
    inside `Host(...)` of a Traefik router's rule label; YamlError or TemplateError as `used`."""
    hosts, others = set(), set()
    for document in yamlguard.compose(text):
        for node, path, _ in templates.value_scalars(document) if document is not None else ():
            if "$" not in node.value or node.tag != "tag:yaml.org,2002:str":
                continue
            names = {one.name for one in placeholders.placeholders(placeholders.parse(node.value, strict=True))}
            hosted = {name for name in names if _a_host(path, node.value, name)}
            hosts |= hosted
            others |= names - hosted
    return hosts - others


def _a_host(path, value, name):
    """Whether `name` stands in the value at `path` as a route's host: an `x-routes` host, or a
    host of a Traefik router's rule as routes.py reads the rule (traefik_rules)."""
    if path[:1] == ("x-routes",) and path[-1:] == ("host",):
        return True
    if len(path) != 4 or path[0] != "services" or path[2] != "labels":
        return False
    key, _, rule = (f"{path[3]}={value}" if isinstance(path[3], str) else value).partition("=")
    if routes.TRAEFIK_RULE.fullmatch(key.strip()) is None:
        return False
    try:
        hosts = [host for found, _ in traefik_rules.alternatives(rule) for host in found]
    except traefik_rules.Unholdable:
        return False
    return any(re.search(rf"\$\{{?{name}\b", host, re.IGNORECASE) for host in hosts)  # a rule's hosts: lower case


def typed(text):
    """The JSON type and value a default reads as where it stands alone."""
    if INTEGER.fullmatch(text):
        return "integer", int(text)
    if NUMBER.fullmatch(text):
        return "number", float(text)
    if text in ("true", "false"):
        return "boolean", text == "true"
    return "string", text


def _default_of(uses):
    """The first default a use of a variable gives (`${X:-1g}`) that waits for no other, or None."""
    for placeholder, _ in uses:
        if placeholder.operator in (":-", "-"):
            value, waits = placeholders.resolve(placeholder.argument)
            if not waits:
                return value
    return None


def inferred(text, env=None, given=None, unset_optional=False):
    """(properties, required, notes) of the variables of a Compose file, with its `.env` values;
    those `given` ({name: schema}, as another format declares them) taken as they are. A variable
    with no default is a generated secret (its name says one), else required; where the platform
    leaves it optional (`unset_optional`: Coolify, Dokploy) it is empty, as Compose reads it
    unset, unless its name says a key only its user can know (EXTERNAL): that one is asked for."""
    env, given = env or {}, given or {}
    properties, required, notes, optional = {}, [], [], []
    for name, uses in used(text).items():
        if name in given:
            properties[name] = given[name]
            continue
        default = _default_of(uses) if env.get(name) is None else env[name]
        whole = any(is_whole for _, is_whole in uses)
        schema = {"type": "string"}
        if default is not None:
            kind, value = typed(default) if whole else ("string", default)
            schema = {"type": kind, "default": value}
        properties[name] = schema
        if any(placeholder.operator in (":?", "?") for placeholder, _ in uses):
            required.append(name)
        if default is not None:
            continue
        if unset_optional and EXTERNAL.search(name):
            schema["writeOnly"] = True
            checked_with(name, properties, required, notes)
        elif SECRET.search(name):
            schema.update({"writeOnly": True, "x-generate": SECRET_PATTERN})
            notes.append(f"{name}: a secret without a default; generated ({SECRET_PATTERN}) unless given.")
        elif unset_optional and name not in required:  # `${X:?}` asks for it whatever the platform does
            schema["default"] = ""
            optional.append(name)
        else:
            checked_with(name, properties, required, notes)
    if optional:
        notes.append(f"{', '.join(optional[:20])}: optional, as the platform leaves them; empty unless given.")
    unused = [name for name in env if name not in properties]
    if unused:
        notes.append(f".env: not used by the file, left out: {', '.join(unused[:20])}.")
    return properties, required, notes
