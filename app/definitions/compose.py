"""Compose: checked against the Compose Specification's published JSON Schema (the copy that
check-jsonschema vendors and keeps current), and measured per service: `deploy.replicas` (else
`scale`, else 1) containers, each with `deploy.resources.limits.memory` (else `mem_limit`),
`deploy.resources.limits.cpus` (else `cpus`) and `storage_opt.size`. A count may be a string of
digits, as Compose casts the result of its interpolation (`replicas: ${REPLICAS:-3}`)."""

from functools import cache

from app.definitions.placeholders import Unresolved
from app.definitions.schemas import amount, compile_schema, problems
from app.definitions.templates import Dialect
from app.model import quantities

# Compose refuses a malformed `${`, and interpolates the file it is given: `$` in a value is `$$`.
DIALECT = Dialect(strict=True, escape=True, typed_defaults=False)


@cache
def _validator():
    """Imported on first use: check-jsonschema's package imports its command line (0.3 s)."""
    from check_jsonschema.builtin_schemas import get_builtin_schema

    return compile_schema(get_builtin_schema("vendor.compose-spec"))


def check(documents):
    documents = [doc for doc in documents if doc is not None]
    if len(documents) != 1:
        return ["(the document): a Compose file is one YAML document, with services."]
    [doc] = documents
    found = problems(_validator(), doc)
    if not found and not (isinstance(doc, dict) and doc.get("services")):
        found.append("services: the file defines no service; a blueprint needs at least one.")
    return found


def _replicas(service, where, found, totals):
    deploy = service.get("deploy") or {}
    key, count = ("deploy.replicas", deploy["replicas"]) if "replicas" in deploy else ("scale", service.get("scale", 1))
    if isinstance(count, Unresolved):
        totals.unresolved |= count.names
        return 1
    if isinstance(count, str) and count.isascii() and count.isdigit() and len(count) <= 19:
        count = int(count)
    if isinstance(count, bool) or not isinstance(count, int) or count < 0:
        found.append(f"{where}.{key}: must be a whole number of containers, not {str(count)[:40]!r}.")
        return 0
    return count


def measure(documents, totals):
    found = []
    [doc] = [doc for doc in documents if doc is not None]
    for name, service in doc["services"].items():
        service = service or {}
        where = f"services.{name}"
        limits = ((service.get("deploy") or {}).get("resources") or {}).get("limits") or {}
        memory_key = "deploy.resources.limits.memory" if "memory" in limits else "mem_limit"
        cpu_key = "deploy.resources.limits.cpus" if "cpus" in limits else "cpus"
        count = _replicas(service, where, found, totals)
        memory = amount(quantities.compose_bytes, limits.get("memory", service.get("mem_limit")),
                         f"{where}.{memory_key}", found, totals)  # fmt: skip
        cpu = amount(quantities.compose_millis, limits.get("cpus", service.get("cpus")), f"{where}.{cpu_key}", found,
                     totals)  # fmt: skip
        size = (service.get("storage_opt") or {}).get("size")
        storage = amount(quantities.compose_bytes, size, f"{where}.storage_opt.size", found, totals) or 0
        totals.add_containers(count, memory, cpu, name, found)
        totals.add_storage(count * storage, name, found)
    return found
