"""Published JSON Schemas, compiled once per process (jsonschema-rs), and their findings as
messages that name the place: `services.web: ...`; so do the quantities a measurement reads.

A value that waits for a variable without a default (templates.Unresolved) is unknown: the
schema's findings about it are not reported (setting the variable may satisfy them), and the
amount it stands for is not known."""

import datetime

import jsonschema_rs

from app.definitions.placeholders import Unresolved
from app.model.quantities import QuantityError

MAX_PROBLEMS = 20  # problems listed for one definition


def compile_schema(schema, registry=None):
    return jsonschema_rs.validator_for(schema, registry=registry) if registry else jsonschema_rs.validator_for(schema)


def place(path, label=""):
    """Where in a document: `services.web`, or `Deployment/web: spec.replicas` with a label."""
    joined = ".".join(str(part) for part in path) or "(the document)"
    return f"{label}: {joined}" if label else joined


def problems(validator, instance, label=""):
    """`place: message` for each way `instance` breaks the schema, but where a value is unknown."""
    unknown = set()
    try:
        errors = list(validator.iter_errors(instance))
    except (ValueError, TypeError):  # a YAML value JSON has no type for (a date, bytes, a set, Unresolved)
        errors = list(validator.iter_errors(as_json(instance, unknown)))
    return [f"{place(error.instance_path, label)}: {error.message}" for error in errors
            if tuple(error.instance_path) not in unknown]  # fmt: skip


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
    """`parse(value)`, None for no value or an Unresolved one (its variables are noted in
    `totals`); a malformed one is added to `found` at its place (and counts as 0, so that the
    other problems are found too)."""
    if value is None:
        return None
    if isinstance(value, Unresolved):
        totals.unresolved |= value.names
        return None
    try:
        return parse(value)
    except QuantityError as exc:
        found.append(f"{where}: {exc}")
        return 0
