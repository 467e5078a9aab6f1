"""The service's own format: what an export gives (`{"format": "native", "version": 1,
"blueprints": [...]}`), each blueprint's writable fields as they were, read back by an import."""

from app.blueprints.schemas import WRITABLE
from app.imports.candidate import Candidate

VERSION = 1


def candidates(document, files, defaults):
    """A Candidate per exported blueprint; fields no blueprint writes are left out, each named."""
    if not isinstance(document, dict) or document.get("format") != "native":
        raise ValueError('must be an export: {"format": "native", "version": 1, "blueprints": [...]}.')
    if not isinstance(document.get("blueprints"), list):
        raise ValueError('must be an export: {"format": "native", "version": 1, "blueprints": [...]}.')
    if document.get("version") != VERSION:
        raise ValueError(f"version {document.get('version')!r} is not one this service reads ({VERSION}).")
    found = []
    for index, blueprint in enumerate(document["blueprints"]):
        if not isinstance(blueprint, dict):
            found.append(Candidate(str(index), "", problems=[f"blueprints.{index}: not an object."]))
            continue
        key = str(blueprint.get("id") or index)
        unknown = [field for field in blueprint if field not in (*WRITABLE, "id")]
        fields = {field: value for field, value in blueprint.items() if field in WRITABLE}
        found.append(
            Candidate(
                key,
                str(blueprint.get("name") or key),
                fields=fields,
                notes=[f"{field}: not a writable field, left out." for field in unknown],
            )
        )
    return found
