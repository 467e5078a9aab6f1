"""The formats an import reads, one registry every list of them reads (the import's schema, the
report's words): each a module whose `candidates(document, files, defaults)` gives the
Candidates of a document, and raises a ValueError, which the route answers as a 422 naming
`document`, when the document is not of its format."""

from dataclasses import dataclass
from types import ModuleType

from app.imports import caprover, compose_file, coolify, dokploy, native, openshift, portainer, quota
from app.model import yamlguard
from app.model.yamlguard import YamlError

MAX_IMPORT_BYTES = 16 * 1024 * 1024  # the most one import takes: its body, a catalog's text, a sync's files
MAX_TEMPLATES = 1000  # templates an import makes at most


@dataclass(frozen=True)
class Format:
    """An import format: the module that reads it, how a problem names its documents, what a person
    is shown it as (`title`, served at `GET /formats`), what its templates become (`makes`), and
    whether a document sent as text is read as YAML first (a catalog may come as its text:
    OpenShift templates are often YAML) or is itself the text the format reads."""

    reader: ModuleType
    named: str
    title: str
    parsed: bool = True
    makes: str = "blueprints"


FORMATS = {  # in the order the contract lists them
    "portainer": Format(portainer, "a Portainer", "Portainer app templates (v2, v3)"),
    "openshift": Format(openshift, "an OpenShift", "OpenShift templates"),
    "compose": Format(compose_file, "a Compose", "A Compose file and its .env", parsed=False),
    "native": Format(native, "a native", "An export of this catalog"),
    "kubernetes-quota": Format(quota, "a Kubernetes quota", "Kubernetes quotas and limit ranges", makes="profiles"),
    "dokploy": Format(dokploy, "a Dokploy catalog", "Dokploy templates"),
    "coolify": Format(coolify, "a Coolify catalog", "Coolify service templates"),
    "caprover": Format(caprover, "a CapRover catalog", "CapRover one-click apps"),
}


def candidates(fmt, document, files, defaults):
    """The Candidates of `document` in the format `fmt`; ValueError when it is not of the format."""
    found = FORMATS[fmt]
    if found.parsed and isinstance(document, str):
        try:
            documents = [doc for doc in yamlguard.load(document, max_bytes=MAX_IMPORT_BYTES) if doc is not None]
        except YamlError as exc:
            raise ValueError(str(exc)) from None
        document = documents[0] if len(documents) == 1 else documents
    return found.reader.candidates(document, files, defaults)
