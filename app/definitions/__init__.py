"""What a blueprint's definition says: checked against its format's published schema, and
measured (`requirements`). `blueprintType` names the format, case-insensitively; any other type
keeps only the YAML safety check.

Problems are reported for `yml`, one message each with its place, at most MAX_PROBLEMS.
"""

from app import yamlguard
from app.definitions import compose, kubernetes
from app.errors import Invalid
from app.quantities import INT64

FORMATS = {
    "compose": compose,
    "docker-compose": compose,
    "docker_compose": compose,
    "kubernetes": kubernetes,
    "k8s": kubernetes,
}
MAX_PROBLEMS = 20


def format_of(blueprint_type):
    return FORMATS.get((blueprint_type or "").lower())


def requirements(blueprint_type, documents):
    """The requirements of a definition (the documents of its `yml`), None for a type no format
    is known for; Invalid naming `yml` when the definition is not valid for its format."""
    fmt = format_of(blueprint_type)
    if fmt is None or documents is None:
        return None
    totals = Totals()
    problems = fmt.check(documents) or fmt.measure(documents, totals)
    if problems:
        raise Invalid({"yml": problems[:MAX_PROBLEMS]})
    return totals.as_dict()


def documents(text):
    """The loaded documents of a definition: carried by a body's, parsed again for a stored one."""
    if text is None:
        return None
    return text.documents if isinstance(text, yamlguard.Definition) else yamlguard.load(text)


def requirements_of(doc):
    """A stored blueprint's requirements; for one stored before they existed, computed now (None
    if its definition is not valid for its format: it was never checked)."""
    if "requirements" in doc:
        return doc["requirements"]
    try:
        return requirements(doc.get("blueprintType"), documents(doc.get("yml")))
    except (Invalid, yamlguard.YamlError):
        return None


class Totals:
    """Sums of what the containers of a definition declare, and who declares nothing."""

    def __init__(self):
        self.memory = self.cpu = self.containers = self.storage = 0
        self.unbounded = set()

    def add_containers(self, count, memory, cpu, name, problems):
        """`count` containers each declaring `memory` bytes and `cpu` millicores (None: nothing)."""
        self.containers += count
        for resource, amount in (("memory", memory), ("cpu", cpu)):
            if amount is None:
                self.unbounded.add(f"{name}: {resource}")
        self.memory += count * (memory or 0)
        self.cpu += count * (cpu or 0)
        self._check(name, problems)

    def add_storage(self, amount, name, problems):
        self.storage += amount
        self._check(name, problems)

    def _check(self, name, problems):
        if max(self.memory, self.cpu, self.containers, self.storage) > INT64:
            problems.append(f"{name}: the totals are larger than a 64-bit integer.")

    def as_dict(self):
        return {
            "memoryBytes": self.memory,
            "cpuMillis": self.cpu,
            "containers": self.containers,
            "storageBytes": self.storage,
            "unbounded": sorted(self.unbounded),
        }
