"""The formats an import reads, one registry every list of them reads (the import's schema, the
report's words): each a module whose `candidates(document, files, defaults)` gives the
Candidates of a document, and raises a ValueError, which the route answers as a 422 naming
`document`, when the document is not of its format."""

from dataclasses import dataclass
from types import ModuleType

from app.imports import caprover, compose_file, coolify, dokploy, native, openshift, portainer, quota
from app.model import yamlguard
from app.model.yamlguard import YamlError

MAX_TEXT_BYTES = 16 * 1024 * 1024  # a catalog sent as text: the most an import's body holds


@dataclass(frozen=True)
class Format:
    """An import format: the module that reads it, how a problem names its documents, and whether
    a document sent as text is read as YAML first (a catalog may come as its text: OpenShift
    templates are often YAML) or is itself the text the format reads."""

    reader: ModuleType
    named: str
    parsed: bool = True


FORMATS = {  # in the order the contract lists them
    "portainer": Format(portainer, "a Portainer"),
    "openshift": Format(openshift, "an OpenShift"),
    "compose": Format(compose_file, "a Compose", parsed=False),
    "native": Format(native, "a native"),
    "kubernetes-quota": Format(quota, "a Kubernetes quota"),
    "dokploy": Format(dokploy, "a Dokploy catalog"),
    "coolify": Format(coolify, "a Coolify catalog"),
    "caprover": Format(caprover, "a CapRover catalog"),
}


def candidates(fmt, document, files, defaults):
    """The Candidates of `document` in the format `fmt`; ValueError when it is not of the format."""
    found = FORMATS[fmt]
    if found.parsed and isinstance(document, str):
        try:
            documents = [doc for doc in yamlguard.load(document, max_bytes=MAX_TEXT_BYTES) if doc is not None]
        except YamlError as exc:
            raise ValueError(str(exc)) from None
        document = documents[0] if len(documents) == 1 else documents
    return found.reader.candidates(document, files, defaults)
