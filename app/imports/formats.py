"""The formats an import reads, each a function from (document, files, defaults) to Candidates:
`portainer`, `openshift`, the self-hosted platforms' `dokploy`, `coolify` and `caprover`, and
`kubernetes-quota` (a profile), each its own module; `compose` (one file and its `.env`) and
`native` (what an export gives). A document that is not of its format is a ValueError, which the
route answers as a 422 naming `document`."""

from app.blueprints.schemas import WRITABLE
from app.definitions.placeholders import TemplateError
from app.imports import caprover, coolify, dokploy, openshift, portainer, quota, variables
from app.imports.candidate import Candidate, parameters
from app.model import yamlguard
from app.model.yamlguard import YamlError

NATIVE_VERSION = 1
MAX_TEXT_BYTES = 16 * 1024 * 1024  # a catalog sent as text: the most an import's body holds


def _portainer(document, files, defaults):
    if not portainer.is_catalog(document):
        raise ValueError('must be a Portainer app templates file: {"version": "2" or "3", "templates": [...]}.')
    return portainer.candidates(document, files)


def _openshift(document, files, defaults):
    return openshift.candidates(document, files)


def _dokploy(document, files, defaults):
    return dokploy.candidates(document)


def _coolify(document, files, defaults):
    return coolify.candidates(document)


def _caprover(document, files, defaults):
    return caprover.candidates(document)


def _compose(document, files, defaults):
    """One Compose file (`document`, its text) and its `.env`, named by `defaults.name`."""
    if not isinstance(document, str):
        raise ValueError("must be the text of a Compose file.")
    name = defaults.get("name")
    if not name:
        raise ValueError("a Compose file's blueprint needs `defaults.name`.")
    found = Candidate(name, name)
    try:
        env = variables.dotenv(files.get(".env", ""))
    except ValueError as exc:
        found.problems.append(f"files..env: {exc}")
        return [found]
    try:
        properties, required, found.notes = variables.inferred(document, env)
    except (TemplateError, YamlError) as exc:
        found.problems.append(f"document: {exc}")
        return [found]
    found.fields = {
        "name": name,
        "blueprintType": "compose",
        "yml": document,
        "parameters": parameters(properties, required),
    }
    return [found]


def _native(document, files, defaults):
    if not isinstance(document, dict) or document.get("format") != "native":
        raise ValueError('must be an export: {"format": "native", "version": 1, "blueprints": [...]}.')
    if not isinstance(document.get("blueprints"), list):
        raise ValueError('must be an export: {"format": "native", "version": 1, "blueprints": [...]}.')
    if document.get("version") != NATIVE_VERSION:
        raise ValueError(f"version {document.get('version')!r} is not one this service reads ({NATIVE_VERSION}).")
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


FORMATS = {
    "portainer": _portainer,
    "openshift": _openshift,
    "compose": _compose,
    "native": _native,
    "kubernetes-quota": quota.candidates,
    "dokploy": _dokploy,
    "coolify": _coolify,
    "caprover": _caprover,
}


def candidates(fmt, document, files, defaults):
    """The Candidates of `document`; ValueError when it is not of the format. A catalog may come
    as its text (OpenShift templates are often YAML), read by the safe loader."""
    if fmt != "compose" and isinstance(document, str):
        try:
            documents = [doc for doc in yamlguard.load(document, max_bytes=MAX_TEXT_BYTES) if doc is not None]
        except YamlError as exc:
            raise ValueError(str(exc)) from None
        document = documents[0] if len(documents) == 1 else documents
    return FORMATS[fmt](document, files, defaults)
