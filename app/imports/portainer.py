"""Portainer app templates (versions "2" and "3"): a container template (type 1) becomes a
one-service Compose file, a stack (types 2 and 3) the file its `repository.stackfile` names, an
Edge stack (type 4) is skipped. `env` becomes string parameters, as Portainer has only strings."""

import re

import yaml

from app.definitions.compose_load import LoadError, parse_volume
from app.definitions.placeholders import TemplateError
from app.definitions.schemas import listed, mapping
from app.imports import variables
from app.imports.candidate import Candidate, checked_with, escaped, named, parameters, tags
from app.model.yamlguard import YamlError

VERSIONS = ("2", "3")
SHARED_NETWORKS = ("host", "bridge", "none")  # Portainer's `network` names a mode for these
VOLUME_NAME = re.compile(r"[a-zA-Z0-9][a-zA-Z0-9_.-]*")  # as Docker names a volume


def candidates(document, files, defaults):
    """A Candidate per template, in the file's order (a stack's file from `files`)."""
    if not isinstance(document, dict) or not isinstance(document.get("templates"), list):
        raise ValueError('must be a Portainer app templates file: {"version": "2" or "3", "templates": [...]}.')
    if str(document.get("version")) not in VERSIONS:
        raise ValueError(f"version must be one of {', '.join(VERSIONS)}.")
    found, seen = [], {}
    for index, template in enumerate(document["templates"]):
        candidate = _candidate(index, template, files)
        seen[candidate.key] = seen.get(candidate.key, 0) + 1
        # v2: titles may repeat (a Linux and a Windows image)
        if seen[candidate.key] > 1 and "id" not in mapping(template):
            candidate.key = f"{candidate.key} #{seen[candidate.key]}"
            candidate.notes.append(f"title: not the first of this title in the document; its key is {candidate.key!r}.")
        found.append(candidate)
    return found


def _candidate(index, template, files):
    if not isinstance(template, dict):
        return Candidate(str(index), "", problems=[f"templates.{index}: not an object."])
    key = str(template["id"]) if "id" in template else str(template.get("title") or index)
    found = Candidate(key, str(template.get("title") or key))
    properties, required = _env(template.get("env"), found)
    kind = template.get("type", 1)
    if kind == 1:
        text = _container(template, properties, found)
    elif kind in (2, 3):
        text = _stack(template, files, properties, required, found)
    else:
        found.skipped = f"type {kind!r} (an Edge stack, or unknown): no Compose file to keep."
    if found.skipped or found.problems:
        return found
    for name, schema in properties.items():
        if not {"default", "const", "examples", "x-generate"} & set(schema):
            checked_with(name, properties, required, found.notes)
    found.fields = {
        "name": found.title[:200] or key,
        "description": _description(template),
        "blueprintType": "compose",
        "yml": text,
        "tags": tags(listed(template.get("categories"))),
        "parameters": parameters(properties, required),
    }
    return found


def _env(env, found):
    """(properties, required) of a template's `env`; problems for a name that is no parameter
    name or is given twice."""
    properties, required = {}, []
    for _, entry, name in named(env, "env", "variable", found):
        schema = {"type": "string"}
        for source, target in (("label", "title"), ("description", "description")):
            if isinstance(entry.get(source), str) and entry[source]:
                schema[target] = entry[source][: 200 if target == "title" else 2000]
        options = [option for option in listed(entry.get("select")) if isinstance(option, dict) and "value" in option]
        if options:
            schema["enum"] = [str(option["value"]) for option in options]
            chosen = [str(option["value"]) for option in options if option.get("default")]
            schema["default"] = chosen[0] if chosen else schema["enum"][0]
        elif entry.get("default") is not None:
            schema["default"] = str(entry["default"])
        if entry.get("preset") and "default" in schema:
            schema["const"] = schema["default"]
        properties[name] = schema
    return properties, required


def _container(template, properties, found):
    """A type 1 template as a Compose file of one service, each `env` passed to it."""
    service = {"image": escaped(template.get("image"))}
    if not isinstance(template.get("image"), str) or not template["image"]:
        found.problems.append("image: a container template needs an image.")
    if isinstance(template.get("command"), str) and template["command"]:
        service["command"] = escaped(template["command"])
    ports = [escaped(port) for port in listed(template.get("ports")) if isinstance(port, str)]
    if ports:
        service["ports"] = ports
    volumes = [_volume(volume) for volume in listed(template.get("volumes")) if isinstance(volume, dict)]
    if [volume for volume in volumes if volume]:
        service["volumes"] = [volume for volume in volumes if volume]
    if properties:
        service["environment"] = {name: f"${{{name}}}" for name in properties}
    service.update(_settings(template))
    document = {"services": {_service_name(template): service}}
    named = _named_volumes(service.get("volumes", []))
    if named:  # Portainer creates a named volume it is given; Compose needs it declared
        document["volumes"] = {name: {} for name in named}
    network = template.get("network")
    if isinstance(network, str) and network:
        if network in SHARED_NETWORKS:
            service["network_mode"] = network
        else:
            service["networks"] = [network]
            document["networks"] = {network: {"external": True}}
    dropped = [key for key in ("logo", "platform", "administrator_only", "maintainer") if key in template]
    if dropped:
        found.notes.append(f"{', '.join(dropped)}: left out (a blueprint has no place for them).")
    return yaml.safe_dump(document, sort_keys=False, allow_unicode=True)


def _settings(template):
    """The service's labels, flags and texts a container template sets."""
    settings = {}
    labels = {
        str(label["name"]): escaped(str(label.get("value", "")))
        for label in listed(template.get("labels"))
        if isinstance(label, dict) and label.get("name")
    }
    if labels:
        settings["labels"] = labels
    for source, target in (("privileged", "privileged"), ("interactive", "stdin_open"), ("interactive", "tty")):
        if template.get(source) is True:
            settings[target] = True
    for source, target in (("restart_policy", "restart"), ("hostname", "hostname")):
        if isinstance(template.get(source), str) and template[source]:
            settings[target] = escaped(template[source])
    return settings


def _volume(volume):
    """Portainer's {container, bind, readonly} as Compose's short syntax."""
    target = volume.get("container")
    if not isinstance(target, str) or not target:
        return None
    spec = f"{volume['bind']}:{target}" if isinstance(volume.get("bind"), str) and volume["bind"] else target
    return escaped(spec + (":ro" if volume.get("readonly") is True and ":" in spec else ""))


def _named_volumes(specs):
    """The named volumes (Docker's names: `data`, not ` /etc`) that volume specs mount."""
    named = []
    for spec in specs:
        try:
            kind, source, _ = parse_volume(spec)
        except LoadError:
            continue
        if kind == "volume" and VOLUME_NAME.fullmatch(source):
            named.append(source)
    return list(dict.fromkeys(named))


def _service_name(template):
    name = re.sub(r"[^a-z0-9_.-]+", "-", str(template.get("title") or "").lower()).strip("-.")
    return name[:63] or "app"


def _stack(template, files, properties, required, found):
    """A stack's Compose file from `files`, its variables made parameters and its `env` over them."""
    repository = template.get("repository") if isinstance(template.get("repository"), dict) else {}
    path = repository.get("stackfile")
    if not isinstance(path, str) or path not in files:
        found.skipped = f"the stack file {path!r} of {repository.get('url')!r} is not among the files given."
        return None
    text = files[path]
    try:
        inferred, inferred_required, notes = variables.inferred(text)
    except (TemplateError, YamlError) as exc:
        found.problems.append(f"files.{path}: {exc}")
        return None
    found.notes += [note for note in notes if note.split(":")[0] not in properties]
    for name, schema in inferred.items():
        if name not in properties:
            properties[name] = schema
            required += [name] if name in inferred_required else []
        elif name in inferred_required and "default" not in properties[name]:  # Portainer sets what it defaults
            required.append(name)
    return text


def _description(template):
    description = template.get("description") if isinstance(template.get("description"), str) else ""
    note = re.sub(r"<[^>]*>", "", template["note"]) if isinstance(template.get("note"), str) else ""
    return "\n\n".join(part for part in (description, note) if part)[:10_000]
