"""Published JSON Schemas, compiled once per process (jsonschema-rs), and their findings as
messages that name the place: `services.web: ...`; so do the quantities a measurement reads."""

import datetime

import jsonschema_rs

from app.quantities import QuantityError


def compile_schema(schema, registry=None):
    return jsonschema_rs.validator_for(schema, registry=registry) if registry else jsonschema_rs.validator_for(schema)


def place(path, label=""):
    """Where in a document: `services.web`, or `Deployment/web: spec.replicas` with a label."""
    joined = ".".join(str(part) for part in path) or "(the document)"
    return f"{label}: {joined}" if label else joined


def problems(validator, instance, label=""):
    """`place: message` for each way `instance` breaks the schema."""
    try:
        errors = list(validator.iter_errors(instance))
    except (ValueError, TypeError):  # a YAML value JSON has no type for (a date, bytes, a set)
        errors = list(validator.iter_errors(as_json(instance)))
    return [f"{place(error.instance_path, label)}: {error.message}" for error in errors]


def as_json(value):
    """`value` with what YAML reads but JSON has no type for made into strings (a timestamp
    becomes its ISO form, as Compose and Kubernetes read one), and keys made strings."""
    if isinstance(value, dict):
        return {str(key): as_json(item) for key, item in value.items()}
    if isinstance(value, (list, tuple, set)):
        return [as_json(item) for item in value]
    if isinstance(value, (datetime.date, datetime.datetime)):
        return value.isoformat()
    if isinstance(value, bytes):
        return value.decode("latin-1")
    return value


def amount(parse, value, where, found):
    """`parse(value)`, None for no value; a malformed one is added to `found` at its place (and
    counts as 0, so that the other problems are found too)."""
    if value is None:
        return None
    try:
        return parse(value)
    except QuantityError as exc:
        found.append(f"{where}: {exc}")
        return 0
