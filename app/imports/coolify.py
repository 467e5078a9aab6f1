"""Coolify service templates, as its catalog publishes them (`templates/compose/<name>.yaml`): a
Compose file whose header comments say what it is (`# slogan:`, `# tags:`, `# category:`,
`# documentation:`, `# port:`; `# ignore: true` keeps it out of Coolify's own list) and whose
magic variables Coolify fills in: `SERVICE_<KIND>_<NAME>` generated (passwords, random strings,
base64, hex, user names, Supabase's keys: JWTs signed with another of them) or given by the team
(`SERVICE_URL_*`, `SERVICE_FQDN_*`; a port after the name says where Coolify's proxy routes it:
a route, `x-routes`, whose domain the file's URLs are written from). Coolify's own service keys
(`exclude_from_hc`) are left out, a bind mount's inline `content` is carried as a Compose
config, and a magic variable listed alone in `environment` is given its value, as Coolify gives
it."""

import json
import re

from app.definitions.routes import EXTENSION as ROUTES
from app.imports import compose_parts, variables
from app.imports.candidate import Candidate, checked_with, parameters, tags

HEADER = re.compile(r"#\s*([a-z_]+)\s*:\s*(.*)")
MAGIC = re.compile(
    r"SERVICE_(PASSWORDWITHSYMBOLS_64|PASSWORDWITHSYMBOLS|PASSWORD_64|PASSWORD|REALBASE64_(?:32|64|128)|REALBASE64"
    r"|BASE64_(?:32|64|128)|BASE64|HEX_(?:32|64|128)|LOWERCASEUSER|USER|SUPABASEANON|SUPABASESERVICE|URL|FQDN)"
    r"_([A-Za-z0-9_]+)"
)
SYMBOLS = r"[A-Za-z0-9~!#$%^&*()\-_.,<>?/\\{}\[\]|:;]"  # Laravel's Str::password with symbols
GENERATED = {  # Coolify's kind -> x-generate pattern (BASE64 is a random string, REALBASE64 base64)
    "PASSWORD": "[A-Za-z0-9]{32}",
    "PASSWORD_64": "[A-Za-z0-9]{64}",
    "PASSWORDWITHSYMBOLS": SYMBOLS + "{32}",
    "PASSWORDWITHSYMBOLS_64": SYMBOLS + "{64}",
    "BASE64": "[A-Za-z0-9]{32}",
    "BASE64_32": "[A-Za-z0-9]{32}",
    "BASE64_64": "[A-Za-z0-9]{64}",
    "BASE64_128": "[A-Za-z0-9]{128}",
    "REALBASE64": "[A-Za-z0-9+/]{43}=",
    "REALBASE64_32": "[A-Za-z0-9+/]{43}=",
    "REALBASE64_64": "[A-Za-z0-9+/]{86}={2}",
    "REALBASE64_128": "[A-Za-z0-9+/]{171}=",
    "HEX_32": "[0-9a-f]{32}",
    "HEX_64": "[0-9a-f]{64}",
    "HEX_128": "[0-9a-f]{128}",
    "USER": "[A-Za-z0-9]{16}",
    "LOWERCASEUSER": "[a-z0-9]{16}",
}
SUPABASE_SECRET = "SERVICE_PASSWORD_JWT"  # noqa: S105 (the parameter Coolify signs Supabase's keys with)
SUPABASE_ROLES = {"SUPABASEANON": "anon", "SUPABASESERVICE": "service_role"}
GIVEN = {  # what a team gives, and the example a template is checked with meanwhile
    "URL": ({"type": "string", "title": "URL", "format": "uri", "x-role": "domain"}, "https://app.example.com"),
    "FQDN": ({"type": "string", "title": "Domain", "format": "hostname", "x-role": "domain"}, "app.example.com"),
}
ROUTED = re.compile(r"SERVICE_(?:FQDN|URL)_([A-Za-z0-9_]+?)_([0-9]{1,5})\b")
PORTLESS = re.compile(r"SERVICE_(?:FQDN|URL)_([A-Za-z0-9_]+)(?:=.*)?", re.DOTALL)  # a domain declared
COOLIFY_VOLUME = re.compile(r"\$\{COOLIFY_VOLUME_([A-Za-z0-9_]+)\}")
OWN_KEYS = ("exclude_from_hc",)  # Coolify's own service keys, which Compose does not know


def candidates(document, files, defaults):
    """A Candidate per template of `document` ({name: its YAML}), in its order."""
    return compose_parts.candidates(document, _candidate, "services: ...")


def title_of(key):
    """A template's title as Coolify shows it, from its file's stem: `plausible-analytics` ->
    `Plausible Analytics` (Laravel's `Str::headline`)."""
    words = re.split(r"[-_\s]+|(?<=[a-z0-9])(?=[A-Z])", key)
    return " ".join(word[:1].upper() + word[1:] for word in words if word) or key


def _candidate(key, text):
    found = Candidate(key, title_of(key))
    header = _header(text)
    if header.get("ignore", "").lower() == "true":
        found.skipped = "marked `# ignore: true`: Coolify does not offer it either."
        return found
    definition = compose_parts.read(text, key, found)
    if definition is None:
        return found
    for name, service in definition["services"].items():
        if isinstance(service, dict):
            _own_keys_left_out(name, service, found)
            _given_their_values(service)
            _contents_as_configs(definition, name, service, found)
    _volumes_declared(definition, found)
    text = _one_domain_per_route(definition, compose_parts.written(_routed(definition, found)))
    named = compose_parts.used(text, key, found)
    if named is None:
        return found
    given, required, examples = _magic(named)
    properties, inferred_required, notes = variables.inferred(text, {}, given, unset_optional=True)
    found.notes += notes
    if any(isinstance(schema.get("x-generate"), dict) for schema in properties.values()):
        properties.setdefault(
            SUPABASE_SECRET, {"type": "string", "writeOnly": True, "x-generate": GENERATED["PASSWORD"]}
        )
    for name in required:
        checked_with(name, properties, inferred_required, found.notes, examples[name])
    found.fields = {
        "name": found.title[:200],
        "description": _description(header),
        "blueprintType": "compose",
        "yml": text,
        "tags": tags([*header.get("tags", "").split(","), header.get("category", "")]),
        "parameters": parameters(properties, inferred_required),
    }
    if header.get("port") and ROUTES not in definition:
        found.notes.append(f"# port: Coolify routes its domain to port {header['port']}; no service says which.")
    return found


def _routed(definition, found):
    """The definition with a route (`x-routes`) for each service whose environment names a domain
    Coolify's proxy routes to one of its ports (`SERVICE_URL_APP_3000`, `SERVICE_FQDN_APP_3000`),
    its host the domain `SERVICE_FQDN_APP_3000` the team gives; one that declares a domain with no
    port (`- SERVICE_URL_APP`) is routed to port 80, as Coolify's proxy routes it (a note)."""
    routes = {}
    for name, service in definition["services"].items():
        environment = service.get("environment") if isinstance(service, dict) else None
        for match in ROUTED.finditer(json.dumps(environment)):
            host = f"${{SERVICE_FQDN_{match[1]}_{match[2]}}}"
            routes.setdefault((name, int(match[2])), {"service": name, "port": int(match[2]), "host": host})
        declared = [PORTLESS.fullmatch(str(entry)) for entry in _entries(environment)]
        portless = [match[1] for match in declared if match and not ROUTED.fullmatch(match[0].partition("=")[0])]
        if portless and not any(service_name == name for service_name, _ in routes):
            routes[name, 80] = {"service": name, "port": 80, "host": f"${{SERVICE_FQDN_{portless[0]}}}"}
            said = f"services.{name}: SERVICE_*_{portless[0]} names no port"
            found.notes.append(f"{said}: routed to port 80, as Coolify's proxy routes it.")
    if routes:
        definition[ROUTES] = list(routes.values())
    return definition


def _entries(environment):
    """The names an `environment` declares (with their `=value`, in a list): its keys, or its items."""
    if isinstance(environment, dict):
        return list(environment)
    return environment if isinstance(environment, list) else []


def _one_domain_per_route(definition, text):
    """`text` with every URL or domain of a routed service written from its route's domain, as
    Coolify derives them all from the one it gives (`SERVICE_URL_APP` is `https://` and
    `SERVICE_FQDN_APP_3000`), so that a team gives each domain once; `${NAME}` and `$NAME` alike,
    `$$NAME` being text."""
    for route in definition.get(ROUTES, ()):
        name = route["host"][len("${SERVICE_FQDN_") : -1]  # APP_3000, or APP where no port is named
        short = name.rpartition("_")[0] if name.endswith(f"_{route['port']}") else name
        for written, value in (
            (f"SERVICE_URL_{name}", f"https://{route['host']}"),
            (f"SERVICE_URL_{short}", f"https://{route['host']}"),
            (f"SERVICE_FQDN_{short}", route["host"]),
        ):
            placeholder = rf"(?<!\$)\$(?:\{{{written}\}}|{written}(?![A-Za-z0-9_]))"
            text = re.sub(placeholder, lambda _, value=value: value, text)
    return text


def _magic(named):
    """The schemas of Coolify's magic variables among `named`: (schemas, the ones a user gives,
    their examples)."""
    given, required, examples = {}, [], {}
    for name in named:
        match = MAGIC.fullmatch(name)
        if match is None:
            continue
        kind = match[1]
        if kind in GIVEN:
            schema, examples[name] = GIVEN[kind]
            given[name] = dict(schema)
            required.append(name)
        elif kind in GENERATED:
            given[name] = {"type": "string", "writeOnly": True, "x-generate": GENERATED[kind]}
        else:  # Supabase's keys: JWTs signed with SERVICE_PASSWORD_JWT, issued for a hundred years
            claims = {"iss": "supabase", "role": SUPABASE_ROLES[kind]}
            jwt = {"secret": SUPABASE_SECRET, "claims": claims, "expiresIn": 100 * 365 * 86400}
            given[name] = {"type": "string", "writeOnly": True, "x-generate": {"jwt": jwt}}
    return given, required, examples


def _header(text):
    """{key: value} of the comment lines that open the file."""
    found = {}
    for line in text.splitlines():
        if not line.startswith("#"):
            break
        match = HEADER.fullmatch(line.strip())
        if match:
            found[match[1]] = match[2].strip()
    return found


def _description(header):
    parts = [header.get("slogan", ""), header.get("documentation", "")]
    return "\n\n".join(part for part in parts if part)[:10_000]


def _volumes_declared(definition, found):
    """Each named volume a service mounts, declared at the top level as Coolify declares it; one
    written `${COOLIFY_VOLUME_NAME}`, the volume Coolify names, is the volume `name`."""
    for service in definition["services"].values():
        volumes = service.get("volumes") if isinstance(service, dict) else None
        for index, volume in enumerate(volumes if isinstance(volumes, list) else []):
            if isinstance(volume, str) and (own := COOLIFY_VOLUME.match(volume)):
                volumes[index] = own[1].lower() + volume[own.end() :]
    added = compose_parts.declare_volumes(definition)
    if added:
        found.notes.append(f"volumes: {', '.join(added)} declared, as Coolify declares the volumes its services name.")


def _own_keys_left_out(name, service, found):
    for key in OWN_KEYS:
        if key in service:
            del service[key]
            found.notes.append(f"services.{name}.{key}: Coolify's own, left out.")


def _given_their_values(service):
    """A magic variable listed alone in `environment` (`- SERVICE_URL_APP`) gets its value, as
    Coolify sets it, instead of Compose's reading it from the environment it runs in."""
    environment = service.get("environment")
    if isinstance(environment, list):
        service["environment"] = [
            f"{item}=${{{item}}}" if isinstance(item, str) and MAGIC.fullmatch(item) else item for item in environment
        ]
    elif isinstance(environment, dict):
        for key, value in environment.items():
            if value is None and MAGIC.fullmatch(str(key)):
                environment[key] = f"${{{key}}}"


def _contents_as_configs(definition, name, service, found):
    """A bind mount with Coolify's inline `content`: the file, as a Compose config (its text as
    written, `$` doubled); `isDirectory`, Coolify's, left out."""
    volumes = service.get("volumes")
    if not isinstance(volumes, list):
        return
    kept = []
    for volume in volumes:
        if (
            isinstance(volume, dict)
            and isinstance(volume.get("content"), str)
            and isinstance(volume.get("target"), str)
        ):
            source = str(volume.get("source") or volume["target"])
            compose_parts.add_config(
                definition, service, source, volume["content"].replace("$", "$$"), volume["target"]
            )
            continue
        if isinstance(volume, dict) and ("isDirectory" in volume or "is_directory" in volume):
            volume = {key: value for key, value in volume.items() if key not in ("isDirectory", "is_directory")}
            found.notes.append(f"services.{name}.volumes: isDirectory, Coolify's own, left out.")
        if isinstance(volume, dict) and "content" in volume:
            volume = {key: value for key, value in volume.items() if key != "content"}
            found.notes.append(f"services.{name}.volumes: a content that is not a file's text, left out.")
        kept.append(volume)
    if kept:
        service["volumes"] = kept
    else:
        del service["volumes"]
