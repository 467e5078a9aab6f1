"""OpenShift templates: a `Template`, a `List` of them or an array. Its `objects` become a
Kubernetes definition (one YAML document each, in order, with the template's `labels` added to
each object's as `oc process` adds them); `parameters` become parameters. `${NAME}` stays as
written; `${{NAME}}` (a whole value, unquoted by oc) becomes `${NAME}`, and its parameter takes
the type its value reads as. A blueprint goes back out as a Template (`as_template`)."""

import re

import yaml

from app.definitions import kubernetes
from app.definitions import parameters as declared
from app.definitions.on_kubernetes.names import label
from app.imports.candidate import Candidate, checked_with, named, parameters
from app.imports.variables import typed
from app.model import yamlguard

API_VERSION = "template.openshift.io/v1"
TYPED = re.compile(r"\$\{\{([A-Za-z_][A-Za-z0-9_]*)\}\}")
WHOLE = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")


def templates(document):
    """The Template objects of a document; ValueError when it holds anything else."""
    items = document.get("items") if isinstance(document, dict) and document.get("kind") == "List" else document
    items = items if isinstance(items, list) else [items]
    if not items or not all(isinstance(item, dict) and item.get("kind") == "Template" for item in items):
        raise ValueError("must be a Template, a List of Templates or an array of them.")
    return items


def candidates(document, files, defaults):
    """A Candidate per Template of `document` (one, a list, or a List of them)."""
    return [_candidate(index, template) for index, template in enumerate(templates(document))]


def _candidate(index, template):
    metadata = template.get("metadata") if isinstance(template.get("metadata"), dict) else {}
    key = metadata.get("name") if isinstance(metadata.get("name"), str) and metadata["name"] else str(index)
    annotations = metadata.get("annotations") if isinstance(metadata.get("annotations"), dict) else {}
    found = Candidate(key, str(annotations.get("openshift.io/display-name") or key))
    objects = template.get("objects")
    if not isinstance(objects, list) or not objects:
        found.skipped = "no objects to deploy."
        return found
    if yamlguard.outweighs(objects):
        found.problems.append(
            f"objects: more than a definition holds ({yamlguard.MAX_BYTES // 1024} KiB), its aliases expanded."
        )
        return found
    whole = set()
    objects = [
        _defined(index, _untyped(_labelled(item, template.get("labels")), whole), found.notes)
        for index, item in enumerate(objects)
    ]
    properties, required = _parameters(template.get("parameters"), whole, found)
    if found.problems:
        return found
    tags = [tag.strip().lower() for tag in str(annotations.get("tags") or "").split(",")]
    found.fields = {
        "name": key,
        "description": str(annotations.get("description") or "")[:10_000],
        "blueprintType": "kubernetes",
        "yml": yaml.safe_dump_all(objects, sort_keys=False, allow_unicode=True),
        "tags": list(dict.fromkeys(tag for tag in tags if re.fullmatch(r"[a-z0-9_.-]{1,64}", tag)))[:20],
        "parameters": parameters(properties, required),
    }
    found.origin = {"template": _shown(template, annotations)}
    return found


def _shown(template, annotations):
    """What a Template shows of itself beside its objects, kept so that an export writes it back."""
    shown = {
        "displayName": annotations.get("openshift.io/display-name"),
        "iconClass": annotations.get("iconClass"),
        "message": template.get("message"),
    }
    shown = {key: value[:10_000] for key, value in shown.items() if isinstance(value, str) and value}
    labels = template.get("labels")
    if isinstance(labels, dict) and labels and all(isinstance(v, str) for v in [*labels, *labels.values()]):
        shown["labels"] = labels  # a Template's labels are text to text, as Kubernetes' are
    return shown


def _defined(index, item, notes):
    """The object without the fields Kubernetes' schema for its kind does not define, each named
    in `notes`: the API server drops them when OpenShift instantiates the template."""
    for path, name in kubernetes.undefined_fields(item):
        parent = item
        for key in path:
            parent = parent[key]
        if isinstance(parent, dict) and name in parent:
            del parent[name]
            at = ".".join(str(key) for key in (*path, name))
            notes.append(
                f"objects.{index}.{at}: not a field of {item['kind']} in Kubernetes; dropped, as the API "
                "server drops it."
            )
    return item


def _labelled(item, labels):
    """The object with the template's labels added to its own (its own win), as `oc process` does."""
    if not isinstance(labels, dict) or not labels or not isinstance(item, dict):
        return item
    metadata = item.get("metadata") if isinstance(item.get("metadata"), dict) else {}
    own = metadata.get("labels") if isinstance(metadata.get("labels"), dict) else {}
    return {**item, "metadata": {**metadata, "labels": {**labels, **own}}}


def _untyped(value, whole):
    """`value` with each `${{NAME}}` written `${NAME}`; the names that stood alone are added to `whole`."""
    if isinstance(value, dict):
        return {key: _untyped(item, whole) for key, item in value.items()}
    if isinstance(value, list):
        return [_untyped(item, whole) for item in value]
    if isinstance(value, str) and "${{" in value:
        match = TYPED.fullmatch(value)
        if match:
            whole.add(match[1])
        return TYPED.sub(r"${\1}", value)
    return value


def _parameters(entries, whole, found):
    """(properties, required) of a template's `parameters`; problems naming their place."""
    properties, required = {}, []
    for index, entry, name in named(entries, "parameters", "parameter", found):
        where = f"parameters.{index}"
        schema = {"type": "string"}
        if isinstance(entry.get("displayName"), str) and entry["displayName"]:
            schema["title"] = entry["displayName"][:200]
        if isinstance(entry.get("description"), str) and entry["description"]:
            schema["description"] = entry["description"][:2000]
        if entry.get("generate") == "expression":
            expression = entry.get("from")
            try:
                if not isinstance(expression, str):
                    raise ValueError("a generated parameter needs an expression (text)")
                declared.generate(expression)
            except ValueError as exc:
                found.problems.append(f"{where}.from: the service cannot generate {str(expression)[:80]!r}: {exc}.")
                continue
            schema["x-generate"] = expression
        elif "value" in entry:
            kind, value = typed(str(entry["value"])) if name in whole else ("string", str(entry["value"]))
            schema.update({"type": kind, "default": value})
        elif entry.get("required"):
            properties[name] = schema
            checked_with(name, properties, required, found.notes)
            continue
        else:
            schema["default"] = ""  # as `oc process` gives it
        if entry.get("required") and schema["type"] == "string":
            schema["minLength"] = 1  # OpenShift's `required`: never empty
        properties[name] = schema
    return properties, required


def as_template(blueprint):
    """A Kubernetes blueprint as an OpenShift Template: its documents as `objects` (a value that
    is a non-string parameter alone written `${{NAME}}`), its parameters mapped back."""
    declared_schema = blueprint.get("parameters") or {}
    properties = declared_schema.get("properties", {})
    typed_names = {name for name, schema in properties.items() if schema["type"] != "string"}
    documents = yamlguard.load(blueprint.get("yml") or "")  # the limits it was stored within, kept on the way out
    objects = [_retyped(doc, typed_names) for doc in documents if doc is not None]
    shown = (blueprint.get("source") or {}).get("template") or {}
    annotations = {"openshift.io/display-name": shown.get("displayName") or blueprint.get("name") or ""}
    if blueprint.get("description"):
        annotations["description"] = blueprint["description"]
    if blueprint.get("tags"):
        annotations["tags"] = ",".join(blueprint["tags"])
    if shown.get("iconClass"):
        annotations["iconClass"] = shown["iconClass"]
    template = {
        "apiVersion": API_VERSION,
        "kind": "Template",
        "metadata": {"name": label(blueprint.get("name") or "blueprint"), "annotations": annotations},
        "objects": objects,
        "parameters": [_parameter(name, schema, declared_schema) for name, schema in properties.items()],
    }
    return template | {key: shown[key] for key in ("message", "labels") if key in shown}


def _retyped(value, typed_names):
    if isinstance(value, dict):
        return {key: _retyped(item, typed_names) for key, item in value.items()}
    if isinstance(value, list):
        return [_retyped(item, typed_names) for item in value]
    match = WHOLE.fullmatch(value) if isinstance(value, str) else None
    return f"${{{{{match[1]}}}}}" if match and match[1] in typed_names else value


def _parameter(name, schema, declared_schema):
    entry = {"name": name}
    if "title" in schema:
        entry["displayName"] = schema["title"]
    if "description" in schema:
        entry["description"] = schema["description"]
    if isinstance(schema.get("x-generate"), str):  # a JWT signed with another value: OpenShift has no form
        entry.update({"generate": "expression", "from": schema["x-generate"]})
    elif "default" in schema:
        entry["value"] = _text(schema["default"])
    if name in declared_schema.get("required", ()) or schema.get("minLength", 0) >= 1:
        entry["required"] = True
    return entry


def _text(value):
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)
