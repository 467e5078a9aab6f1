"""CapRover one-click apps, as its catalog publishes them (`public/v4/apps/<name>.yml`,
`captainVersion: 4`): a Compose-like `services` map whose text uses CapRover's variables, and
`caproverOneClickApp` (its variables, display name, description, instructions). A variable is
`$$cap_<id>`: the app's name (`$$cap_appname`, whose default is the template's name), the
team's root domain (`$$cap_root_domain`, required), or one the template lists (`label` as title,
`description`, `defaultValue` as default, `validRegex` as pattern; a default of
`$$cap_gen_random_hex(N)` generated). CapRover substitutes nothing else, so every other `$` is
text. In a mapping key, where no parameter may stand, and in CapRover's host names
(`srv-captain--NAME`, which become `NAME`, as Compose's services reach each other),
`$$cap_appname` is the app's name. `caproverExtra.dockerfileLines` becomes the service's
`build.dockerfile_inline`, its `containerHttpPort` a route (`x-routes`) where CapRover serves the
app, at `$$cap_appname.$$cap_root_domain`; the rest of `caproverExtra` is named in notes."""

import re
from functools import partial

from app.definitions import compose
from app.definitions import parameters as declared
from app.definitions.parameters import NAME
from app.definitions.routes import EXTENSION as ROUTES
from app.imports import compose_parts, variables
from app.imports.candidate import Candidate, parameters

UNLISTED = re.compile(r"\$\$cap_(?!gen_random_hex\()[A-Za-z0-9_]+")  # a variable the body uses
RANDOM_HEX = re.compile(r"\$\$cap_gen_random_hex\(([0-9]{1,3})\)")
HOST = re.compile(r"srv-captain--((?:[A-Za-z0-9_.-]|\$\$cap_appname)*)")
APP_NAME, ROOT_DOMAIN = "cap_appname", "cap_root_domain"
BUILT_IN = (APP_NAME, ROOT_DOMAIN)
JS_REGEX = re.compile(r"/(.*)/([a-z]*)", re.DOTALL)
OWN_KEYS = ("captainVersion", "caproverOneClickApp")
EXAMPLES = ("example", "example.com", "admin@example.com", "/srv/example", "true", "Example-Password-1", "8080")
ROUTED = ("containerHttpPort", "notExposeAsWebApp")  # caproverExtra's keys a route is read from
NAMES_SERVICES = ("depends_on", "links", "volumes_from", "networks")  # where a value names a service or network


def candidates(document, files, defaults):
    """A Candidate per template of `document` ({name: its YAML}), in its order."""
    return compose_parts.candidates(document, _candidate, "captainVersion: 4\\nservices: ...")


def _candidate(key, text):
    found = Candidate(key, key)
    app_name = re.sub(r"[^a-z0-9-]+", "-", key.lower()).strip("-") or "app"
    definition = compose_parts.read(text, key, found)
    if definition is None:
        return found
    about = definition.get("caproverOneClickApp") if isinstance(definition.get("caproverOneClickApp"), dict) else {}
    for own in OWN_KEYS:
        definition.pop(own, None)
    _as_caprover_reads(definition, found)
    properties, ids = _variables(about.get("variables"), app_name, found)
    _unlisted(definition, text, properties, ids, found)
    text = compose_parts.written(_written_in(definition, properties, ids, found))
    used = compose_parts.used(text, key, found)
    if used is None or found.problems:
        return found
    properties = {name: schema for name, schema in properties.items() if name in used}
    inferred, required, notes = variables.inferred(text, {}, properties)
    found.notes += notes
    required += [name for name, schema in properties.items() if "examples" in schema]
    found.title = str(about.get("displayName") or key)[:200]
    found.fields = {
        "name": found.title,
        "description": _description(about),
        "blueprintType": "compose",
        "yml": text,
        "parameters": parameters(inferred, required),
    }
    return found


def _as_caprover_reads(definition, found):
    """What CapRover ignores, left out with a note, where Compose would refuse it: a `version` that
    is no string (CapRover reads none), and a service's network that no `networks` declares
    (CapRover joins every app to its own overlay network)."""
    version = definition.get("version")
    if version is not None and not isinstance(version, str):
        del definition["version"]
        found.notes.append(f"version: {version!r} is no string, which Compose refuses and CapRover ignores: left out.")
    declared = (
        {"default", *(definition.get("networks") or {})}
        if isinstance(definition.get("networks"), dict | None)
        else None
    )
    for name, service in definition["services"].items():
        joined = service.get("networks") if isinstance(service, dict) else None
        if declared is None or not isinstance(joined, list | dict):
            continue
        undeclared = [one for one in joined if isinstance(one, str) and one not in declared]
        if not undeclared:
            continue
        kept = [one for one in joined if one not in undeclared]
        if kept:
            service["networks"] = {one: joined[one] for one in kept} if isinstance(joined, dict) else kept
        else:
            del service["networks"]
        found.notes.append(
            f"services.{name}.networks: {', '.join(undeclared)} declared nowhere, which CapRover ignores: left out."
        )


def _unlisted(definition, text, properties, ids, found):
    """The ids the app uses without listing them, added to `properties` and `ids`: a random hex
    in a value (generated at install, once) and a `$$cap_` name (required)."""
    for match in (found for string in _strings(definition["services"]) for found in RANDOM_HEX.finditer(string)):
        if match[0] not in ids:
            ids[match[0]] = f"cap_random_hex_{match[1]}"
            properties[ids[match[0]]] = {"type": "string", "writeOnly": True, "x-generate": f"[0-9a-f]{{{match[1]}}}"}
    for written in sorted(set(UNLISTED.findall(text)) - set(ids)):
        ids[written] = written.removeprefix("$$")
        properties[ids[written]] = {"type": "string", "examples": ["example"]}
        found.notes.append(f"{written}: not among the app's variables; required, checked with 'example' meanwhile.")


def _written_in(definition, properties, ids, found):
    """The definition with each id where CapRover places it: in keys (their defaults), in values
    (as variables), its services named after the app, the volumes it names declared, and a route
    for each web app."""
    app_name = properties[APP_NAME]["default"]
    defaults = {written: properties[name].get("default") for written, name in ids.items()}
    routes = [{**route, "service": _key(route["service"], defaults)} for route in _routes(definition)]
    definition = _keyed(definition, defaults)
    for name, service in definition["services"].items():
        if isinstance(service, dict):
            _extra(name, service, found)
            _named(service, app_name)
    if routes:
        definition[ROUTES] = routes
    definition = _valued(definition, _ids_pattern(ids), ids)
    added = compose_parts.declare_volumes(definition) + _variable_volumes(definition, properties)
    if added:
        found.notes.append(f"volumes: {', '.join(added)} declared, as CapRover makes the volumes its apps name.")
    return definition


def _variables(listed, app_name, found):
    """({name: schema}, {id as written: name}) of the app's variables: its name, the root domain,
    and those listed (one without a default required, checked meanwhile with an example its
    pattern accepts). CapRover replaces an id wherever its text stands, whatever it is."""
    properties = {
        APP_NAME: {"type": "string", "title": "App name", "default": app_name, "pattern": "^[a-z0-9-]+$"},
        ROOT_DOMAIN: {
            "type": "string",
            "title": "Root domain",
            "format": "hostname",
            "x-role": "domain",
            "examples": ["example.com"],
        },
    }
    ids = {f"$${APP_NAME}": APP_NAME, f"$${ROOT_DOMAIN}": ROOT_DOMAIN}
    for index, entry in enumerate(listed if isinstance(listed, list) else []):
        written = entry.get("id") if isinstance(entry, dict) else None
        name = re.sub(r"[^A-Za-z0-9_]", "_", written.lstrip("$")) if isinstance(written, str) else ""
        if not NAME.fullmatch(name) or (written in ids and name in properties and name not in BUILT_IN):
            found.problems.append(
                f"caproverOneClickApp.variables.{index}.id: {str(written)[:60]!r} is no variable's id, or given twice."
            )
            continue
        if name != written.removeprefix("$$"):
            found.notes.append(f"{written}: the parameter {name} (a parameter's name has no {written[0]!r} or '-').")
        ids[written] = name
        properties[name] = _schema(entry, name, dict(properties[name]) if name in BUILT_IN else None, app_name, found)
    _defaults_placed(properties, ids, found)
    return properties, ids


def _schema(entry, name, built_in, app_name, found):
    """The schema of a listed variable (`built_in`: the one of the app's name or root domain)."""
    schema = built_in or {"type": "string"}
    for source, target, most in (("label", "title", 200), ("description", "description", 2000)):
        if isinstance(entry.get(source), str) and entry[source]:
            schema[target] = entry[source][:most]
    default = "" if entry.get("defaultValue") is None else str(entry["defaultValue"])
    default = HOST.sub(lambda match: match[1], default).replace(f"$${APP_NAME}", app_name) or None
    if name == APP_NAME and default is not None:
        default = re.sub(r"[^a-z0-9-]+", "-", default.lower()).strip("-") or app_name
    if default is not None and RANDOM_HEX.search(default):
        schema.update({"writeOnly": True, "x-generate": _generator(default)})
    elif default is not None:
        schema["default"] = default
    pattern = _pattern(entry.get("validRegex"), name, found)
    if pattern:
        schema["pattern"] = pattern
    if not {"default", "x-generate"} & set(schema):
        schema["examples"] = [_example(pattern)]
        if pattern and schema["examples"] == [None]:
            del schema["pattern"]
            schema["examples"] = ["example"]
            found.notes.append(f"{name}: validRegex {pattern!r} left out: no example passes it.")
        found.notes.append(f"{name}: no default; required, checked with {schema['examples'][0]!r} meanwhile.")
    return schema


def _defaults_placed(properties, ids, found):
    """A default naming other variables (`$$cap_appname.$$cap_root_domain`) with theirs written
    in; where one has none, the parameter is required, checked with their examples meanwhile."""
    pattern = _ids_pattern(ids)
    for name, schema in properties.items():
        default = schema.get("default")
        if not isinstance(default, str) or not pattern.search(default):
            continue
        given = {written: properties[other] for written, other in ids.items() if other != name}
        known = all("default" in given.get(match[0], {}) for match in pattern.finditer(default))
        placed = pattern.sub(partial(_shown, given), default)
        if known:
            schema["default"] = placed
        else:
            del schema["default"]
            schema["examples"] = [placed]
            found.notes.append(f"{name}: its default names a variable without one; required, checked with {placed!r}.")


def _shown(given, match):
    schema = given.get(match[0], {})
    return str(schema.get("default", (schema.get("examples") or ["example"])[0]))


def _generator(default):
    """The x-generate pattern of a default holding `$$cap_gen_random_hex(N)` among literal text."""
    out, at = [], 0
    for match in RANDOM_HEX.finditer(default):
        out += [_literal(default[at : match.start()]), f"[0-9a-f]{{{match[1]}}}"]
        at = match.end()
    return "".join(out) + _literal(default[at:])


def _literal(text):
    """`text` as literal characters of a generator pattern."""
    return re.sub(r"([\\\[\]{}])", r"\\\1", text)


def _example(pattern):
    """The first of EXAMPLES that `pattern` accepts (any, without one); None when it takes none."""
    if not pattern:
        return EXAMPLES[0]
    check = declared.validator({"type": "string", "pattern": pattern})
    return next((example for example in EXAMPLES if check.is_valid(example)), None)


def _variable_volumes(definition, properties):
    """A volume whose source is one variable whose default is a name (`$$cap_data_path`, default
    `app-data`): that volume declared, as CapRover makes it; the names added."""
    added = []
    declared = definition.setdefault("volumes", {}) if isinstance(definition.get("volumes", {}), dict) else {}
    for service in definition["services"].values():
        volumes = service.get("volumes") if isinstance(service, dict) else None
        for volume in volumes if isinstance(volumes, list) else []:
            source = volume.split(":", 1)[0] if isinstance(volume, str) else None
            named = re.fullmatch(r"\$\{([A-Za-z0-9_]+)\}", source or "")
            schema = properties.get(named[1], {}) if named else {}
            if "examples" in schema:
                schema["examples"] = ["/srv/example"]  # a path, when the team gives none
            default = schema.get("default")
            if default and compose_parts.volume_name(f"{default}:/") and default not in declared:
                declared[default] = None
                added.append(default)
    if not declared:
        definition.pop("volumes", None)
    return added


def _pattern(written, name, found):
    """A JavaScript regular expression literal (`/^(true|false)$/`) as a JSON Schema pattern; None
    (noted) for one the service's linear-time engine does not run (lookaround, backreferences)."""
    match = JS_REGEX.fullmatch(written.strip()) if isinstance(written, str) else None
    if not match or not match[1]:
        return None
    try:
        declared.validator({"type": "string", "pattern": match[1]})
    except ValueError:
        found.notes.append(f"{name}: validRegex {written!r} left out: the service's patterns have no lookaround.")
        return None
    return match[1]


def _keyed(value, defaults):
    """`value` with each variable in a mapping key, where no parameter may stand, replaced by its
    default (the app's name for `$$cap_appname`)."""
    if isinstance(value, dict):
        return {_key(key, defaults): _keyed(item, defaults) for key, item in value.items()}
    if isinstance(value, list):
        return [_keyed(item, defaults) for item in value]
    return value


def _key(key, defaults):
    if not isinstance(key, str) or "$" not in key:
        return key
    for written in sorted(defaults, key=len, reverse=True):
        if defaults[written] is not None:
            key = key.replace(written, defaults[written])
    return key


def _strings(value):
    """Every string value within `value`."""
    if isinstance(value, dict):
        value = list(value.values())
    if isinstance(value, list):
        for item in value:
            yield from _strings(item)
    elif isinstance(value, str):
        yield value


def _ids_pattern(ids):
    """A pattern matching each id, the longest first (`$$cap_db` is a prefix of `$$cap_db_user`)."""
    return re.compile("|".join(re.escape(written) for written in sorted(ids, key=len, reverse=True)))


def _valued(value, pattern, ids):
    """`value` with every string as Compose reads it: each variable's id a placeholder, every other
    `$` text."""
    if isinstance(value, dict):
        return {key: _valued(item, pattern, ids) for key, item in value.items()}
    if isinstance(value, list):
        return [_valued(item, pattern, ids) for item in value]
    if not isinstance(value, str):
        return value
    out, at = [], 0
    for match in pattern.finditer(value):
        out += [value[at : match.start()].replace("$", "$$"), f"${{{ids[match[0]]}}}"]
        at = match.end()
    return "".join(out) + value[at:].replace("$", "$$")


def _routes(definition):
    """A route per service CapRover exposes as a web app on its `containerHttpPort` (the app
    itself, `$$cap_appname`, on 80 where it names none; not one marked `notExposeAsWebApp`), at
    `<its name>.<root domain>` as CapRover serves it, ids as written."""
    routes = []
    for name, service in definition["services"].items():
        extra = service.get("caproverExtra") if isinstance(service, dict) else None
        extra = extra if isinstance(extra, dict) else {}
        port = str(extra.get("containerHttpPort", "80" if name == f"$${APP_NAME}" else ""))
        if not port.isdigit() or str(extra.get("notExposeAsWebApp", "")).lower() == "true":
            continue
        routes.append({"service": name, "port": int(port), "host": f"{name}.$${ROOT_DOMAIN}"})
    return routes


def _extra(name, service, found):
    """`caproverExtra`: Dockerfile lines as `build.dockerfile_inline`, the rest named in notes; a
    key Compose does not know, which CapRover ignores, left out."""
    for key in [key for key in service if key not in compose.service_keys() and not str(key).startswith("x-")]:
        if key != "caproverExtra":
            found.notes.append(f"services.{name}.{key}: not a Compose key (CapRover ignores it), left out.")
            del service[key]
    extra = service.pop("caproverExtra", None)
    if isinstance(extra, dict):
        lines = extra.pop("dockerfileLines", None)
        if isinstance(lines, list) and all(isinstance(line, str) for line in lines):
            service["build"] = {"context": ".", "dockerfile_inline": "\n".join(lines) + "\n"}
            service.pop("image", None)
        for key, value in extra.items():
            if key not in ROUTED:
                found.notes.append(f"services.{name}.caproverExtra.{key}: {value!r}, CapRover's own, left out.")


def _named(service, app_name):
    """The app's name placed where a name must be known at import: in CapRover's host names
    (`srv-captain--NAME`, which become `NAME`) and in the volumes the service mounts."""
    _unhosted(service, app_name)
    for key in NAMES_SERVICES:
        if isinstance(service.get(key), list):
            service[key] = [_placed(item, app_name) for item in service[key]]
    volumes = service.get("volumes")
    for index, volume in enumerate(volumes if isinstance(volumes, list) else []):
        if isinstance(volume, str) and ":" in volume:
            source, rest = volume.split(":", 1)
            volumes[index] = source.replace(f"$${APP_NAME}", app_name) + ":" + rest
        elif isinstance(volume, dict) and isinstance(volume.get("source"), str):
            volume["source"] = volume["source"].replace(f"$${APP_NAME}", app_name)


def _placed(value, app_name):
    return value.replace(f"$${APP_NAME}", app_name) if isinstance(value, str) else value


def _unhosted(value, app_name):
    """`srv-captain--NAME` as `NAME` in every string of `value` (in place)."""
    items = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else ()
    for key, item in list(items):
        if isinstance(item, str) and "srv-captain--" in item:
            value[key] = HOST.sub(lambda match: match[1].replace(f"$${APP_NAME}", app_name), item)
        else:
            _unhosted(item, app_name)


def _description(about):
    instructions = about.get("instructions") if isinstance(about.get("instructions"), dict) else {}
    parts = [about.get("description"), instructions.get("start"), instructions.get("end")]
    return "\n\n".join(str(part) for part in parts if part)[:10_000]
