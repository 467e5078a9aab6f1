"""Published JSON Schemas, compiled once per process (jsonschema-rs), and their findings as
messages that name the place: `services.web: ...`; so do the quantities a measurement reads.

A value that waits for a variable without a default (templates.Unresolved) is unknown: the
schema's findings about it are not reported (setting the variable may satisfy them), and the
amount it stands for is not known."""

import datetime
import re
from dataclasses import dataclass

import jsonschema_rs

from app.definitions.placeholders import Unresolved
from app.definitions.totals import PENDING
from app.model.quantities import QuantityError

MAX_PROBLEMS = 20  # problems listed for one definition


@dataclass(frozen=True)
class Schema:
    validator: object  # compiled by jsonschema-rs
    document: dict  # as published, to read what a finding's place in it declares


def compile_schema(schema, registry=None):
    options = {"registry": registry} if registry else {}
    return Schema(jsonschema_rs.validator_for(schema, **options), schema)


def mapping(value):
    """A mapping, {} for anything else: a rule reads only what has the type it wants (the schema
    names a value of another type)."""
    return value if isinstance(value, dict) else {}


def listed(value):
    """A list, [] for anything else (as `mapping`)."""
    return value if isinstance(value, list) else []


def place(path, label=""):
    """Where in a document: `services.web`, or `Deployment/web: spec.replicas` with a label."""
    joined = ".".join(str(part) for part in path) or "(the document)"
    return f"{label}: {joined}" if label else joined


def problems(schema, instance, label=""):
    """`place: message` for each way `instance` breaks the schema, but where a value is unknown."""
    unknown = set()
    try:  # `is_valid` first: half the cost of listing no error, and nearly every write is valid
        if schema.validator.is_valid(instance):
            return []
        errors = list(schema.validator.iter_errors(instance))
    except (ValueError, TypeError):  # a YAML value JSON has no type for (a date, bytes, a set, Unresolved)
        instance = as_json(instance, unknown)
        errors = list(schema.validator.iter_errors(instance))
    found = []
    for error in errors:
        message = _unexpected(schema.document, error) if error.message.startswith("Unevaluated prop") else error.message
        if message and tuple(error.instance_path) not in unknown:
            found.append(f"{place(error.instance_path, label)}: {message}")
    return found


def _unexpected(document, error):
    """An `unevaluatedProperties` finding without the properties its schema declares: a branch
    that failed for another reason (reported on its own) leaves them unevaluated. None if no
    property is left."""
    node = document
    for key in error.schema_path[:-1]:
        node = node.get(key) if isinstance(node, dict) else None
    if not isinstance(node, dict):
        return error.message
    names, patterns = _declared(document, node)
    names = [
        name
        for name in error.kind.unexpected
        if name not in names and not any(re.search(pattern, name) for pattern in patterns)
    ]
    if not names:
        return None
    listed = ", ".join(repr(name) for name in names)
    return f"Unevaluated properties are not allowed ({listed} {'was' if len(names) == 1 else 'were'} unexpected)"


def _declared(document, node, depth=0):
    """The property names and patterns a schema node declares, through its `allOf`, `anyOf`,
    `oneOf` and the document's own `$ref`s."""
    names, patterns = set(node.get("properties", ())), set(node.get("patternProperties", ()))
    ref = node.get("$ref")
    branches = [*node.get("allOf", ()), *node.get("anyOf", ()), *node.get("oneOf", ())]
    if isinstance(ref, str) and ref.startswith("#/"):
        target = document
        for key in ref[2:].split("/"):
            target = target.get(key) if isinstance(target, dict) else None
        branches.append(target)
    for branch in branches if depth < 5 else ():
        if isinstance(branch, dict):
            more_names, more_patterns = _declared(document, branch, depth + 1)
            names |= more_names
            patterns |= more_patterns
    return names, patterns


def as_json(value, unknown, path=()):
    """`value` with what YAML reads but JSON has no type for made into strings (a timestamp
    becomes its ISO form, as Compose and Kubernetes read one), and keys made strings; the paths
    of Unresolved values are added to `unknown`."""
    if isinstance(value, dict):
        return {str(key): as_json(item, unknown, (*path, str(key))) for key, item in value.items()}
    if isinstance(value, (list, tuple, set)):
        return [as_json(item, unknown, (*path, index)) for index, item in enumerate(value)]
    if isinstance(value, (datetime.date, datetime.datetime)):
        return value.isoformat()
    if isinstance(value, bytes):
        return value.decode("latin-1")
    if isinstance(value, Unresolved):
        unknown.add(path)
        return str(value)
    return value


def amount(parse, value, where, found, totals):
    """`parse(value)`, None for no value, PENDING for an Unresolved one (its variables are noted
    in `totals`); a malformed one is added to `found` at its place (and counts as 0, so that the
    other problems are found too)."""
    if value is None:
        return None
    if isinstance(value, Unresolved):
        totals.unresolved |= value.names
        return PENDING
    try:
        return parse(value)
    except QuantityError as exc:
        found.append(f"{where}: {exc}")
        return 0
