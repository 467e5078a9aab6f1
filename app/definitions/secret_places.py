"""Where a secret parameter (`writeOnly`, or generated) may stand in a definition: only where its
value reaches the running process and nothing else (environment values, commands and entrypoints,
health check tests, config and secret content, a build's inline Dockerfile, a manifest's field
named `secret`, `password` or `token` outside its metadata). Anywhere else (a name, a label, an image, a path, a
hostname, a port) it would be written in plain text where other readers see it: on the cluster,
in `requirements`, in a note or a problem. Checked on every write of a blueprint, following
aliases, so that an anchor cannot carry a secret where it may not stand."""

import yaml

from app.definitions import parameters, placeholders
from app.definitions.placeholders import TemplateError
from app.definitions.schemas import MAX_PROBLEMS, place
from app.model import yamlguard

STR = "tag:yaml.org,2002:str"
WHERE = (
    "secrets may stand only in environment values, commands, entrypoints, health check tests and config or "
    "secret content"
)
COMMANDS = frozenset({"command", "entrypoint"})
CONTAINERS = frozenset({"containers", "initContainers", "ephemeralContainers"})
SECRET_FIELDS = frozenset({"secret", "password", "token"})


def refused(text, declared, strict, compose):
    """The problems of each secret parameter standing where it may not (a Compose file when
    `compose`, else Kubernetes manifests)."""
    secret = parameters.secret_names(declared or {})
    return [
        f"{where}: holds {', '.join(f'${{{name}}}' for name in names)}, a secret parameter; {WHERE}."
        for where, names in misplaced(text, secret, strict, compose)
    ]


def misplaced(text, secret, strict, compose):
    """(place, names) where any of the `secret` names stands where a secret may not."""
    if not secret or "$" not in text:
        return []
    found = []
    try:
        documents = yamlguard.compose(text)
    except yamlguard.YamlError:
        return []  # the format's own check names it
    for index, document in enumerate(documents):
        kind, label = _kind(document), "" if compose else f"yml.{index}"
        for node, path in _scalars(document):
            if node.tag != STR or "$" not in node.value:
                continue
            try:
                parts = placeholders.parse(node.value, strict)
            except TemplateError:
                continue  # the template's own check names it
            names = sorted({one.name for one in placeholders.placeholders(parts)} & secret)
            if names and not (_in_compose(path) if compose else _in_kubernetes(path, kind)):
                found.append((place(path, label), names))
            if len(found) >= MAX_PROBLEMS:
                return found
    return found


def _kind(document):
    if isinstance(document, yaml.MappingNode):
        for key, value in document.value:
            if key.value == "kind" and isinstance(value, yaml.ScalarNode):
                return value.value
    return None


def _scalars(node):
    """(scalar, path) of each scalar value, reached through every alias (yamlguard has bounded what
    aliases add to a definition)."""
    stack = [(node, ())]
    while stack:
        node, path = stack.pop()
        if isinstance(node, yaml.ScalarNode):
            yield node, path
        elif isinstance(node, yaml.MappingNode):
            stack.extend(
                (value, (*path, key.value if isinstance(key, yaml.ScalarNode) else "?")) for key, value in node.value
            )
        elif isinstance(node, yaml.SequenceNode):
            stack.extend((item, (*path, index)) for index, item in enumerate(node.value))


def _in_compose(path):
    if path and str(path[0]).startswith("x-"):
        return True  # an extension field runs nothing; where it is aliased into is checked there
    if len(path) >= 3 and path[0] == "services":
        field = path[2:]
        return (
            (field[0] == "environment" and len(field) == 2)
            or field[0] in COMMANDS
            or (field[0] == "healthcheck" and len(field) >= 2 and field[1] == "test")
            or field[:2] == ("build", "dockerfile_inline")  # the build's commands (CapRover's dockerfileLines)
        )
    return len(path) == 3 and path[0] in ("configs", "secrets") and path[2] == "content"


def _in_kubernetes(path, kind):
    if kind in ("Secret", "ConfigMap") and path and path[0] in ("data", "stringData", "binaryData"):
        return True
    if path and path[0] != "metadata" and path[-1] in SECRET_FIELDS:
        return True  # a field that holds a secret by its schema (a BuildConfig's webhook `secret`)
    if len(path) >= 3 and path[-3] == "env" and path[-1] == "value":
        return True
    named = [part for part in path if isinstance(part, str)]
    in_container = bool(CONTAINERS & set(named))
    return in_container and bool(named) and named[-1] in ("command", "args")
