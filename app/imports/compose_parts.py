"""Changes the platforms' formats make to a Compose file read as data (dokploy.py, coolify.py,
caprover.py): a file the platform writes beside the project, carried as a Compose config with its
content; the file read and written out again."""

import posixpath
import re

import yaml

from app.definitions import compose
from app.definitions.placeholders import TemplateError
from app.imports import variables
from app.model import yamlguard
from app.model.yamlguard import YamlError

CONFIG_NAME = re.compile(r"[^A-Za-z0-9_.-]")


def candidates(document, candidate, example):
    """`candidate(key, text)` of each template of `document` ({name: its YAML}), in its order; a
    ValueError showing `example` when the document is not such a map."""
    if not isinstance(document, dict) or not all(isinstance(text, str) for text in document.values()):
        raise ValueError(f'must map each template\'s name to its YAML: {{"<name>": "{example}"}}.')
    return [candidate(str(key), text) for key, text in document.items()]


def read(text, name, found):
    """The one Compose file `text` holds, as data, else None and a problem naming the file."""
    try:
        documents = [doc for doc in yamlguard.load(text, compose.DIALECT.loader) if doc is not None]
    except yamlguard.YamlError as exc:
        found.problems.append(f"{name}: {exc}")
        return None
    definition = documents[0] if len(documents) == 1 else None
    if not isinstance(definition, dict) or not isinstance(definition.get("services"), dict):
        found.problems.append(f"{name}: not one Compose file with `services`.")
        return None
    return definition


def written(definition):
    return yaml.safe_dump(definition, sort_keys=False, allow_unicode=True)


def used(text, where, found):
    """The variables the Compose file `text` uses, or None with a problem when it cannot be read."""
    try:
        return variables.used(text)
    except (TemplateError, YamlError) as exc:
        found.problems.append(f"{where}: {exc}")
        return None


def add_config(definition, service, path, content, target):
    """Mount `content` (template text: `$` doubled where it is literal) at `target` in `service`,
    as the top-level config named for `path`, the file it was."""
    parts = [part for part in posixpath.normpath(path).split("/") if part not in ("", ".", "..")]
    name = CONFIG_NAME.sub("_", "_".join(parts)) or "file"
    definition.setdefault("configs", {})[name] = {"content": content}
    service.setdefault("configs", []).append({"source": name, "target": target})


def volume_name(volume):
    """The named volume a service's volume entry mounts (short or long syntax), else None (a path,
    an anonymous volume, something else)."""
    if isinstance(volume, str):
        source, colon, _ = volume.partition(":")
    elif isinstance(volume, dict) and volume.get("type", "volume") == "volume":
        source, colon = volume.get("source"), True
    else:
        return None
    if not colon or not isinstance(source, str) or not source or "/" in source or source[0] in ".~$":
        return None
    return source


def declare_volumes(definition):
    """Declare at the top level each named volume a service mounts and the file does not declare,
    as the platforms do (Compose refuses a volume it was not told of); the names added."""
    declared = definition.get("volumes") if isinstance(definition.get("volumes"), dict) else {}
    added = []
    for service in definition["services"].values():
        volumes = service.get("volumes") if isinstance(service, dict) else None
        for volume in volumes if isinstance(volumes, list) else []:
            name = volume_name(volume)
            if name is not None and name not in declared:
                declared[name] = None
                added.append(name)
    if added:
        definition["volumes"] = declared
    return added
