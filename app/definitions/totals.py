"""What the containers of a definition declare, summed as a format's `measure` reads them, and
kept container by container for a fit with a profile's defaults and maximum (definitions.fit)."""

from app.model.quantities import INT64, PER_CONTAINER

RESOURCES = ("memory", "cpu", "containers", "storage")


class Pending:
    """An amount written as a variable without a default: declared, but not known until it is set."""

    def __repr__(self):
        return "PENDING"


PENDING = Pending()


class Totals:
    """Sums of what the containers of a definition declare, who declares nothing, and each
    container group as `perContainer` entries: {name, count, memory, cpu} (an amount null where
    nothing is declared, "unknown" where a variable stands in it), with `floor` (the memory a
    Compose service reserves: no limit below it starts), `shortForm` (a Compose service that
    writes its limits as `mem_limit`, `cpus` or `pids_limit` only: amounts added there stay in
    that form) and `at` (where a Kubernetes container stands: the document's index, then the
    path) where they apply."""

    def __init__(self, security=None):
        self.memory = self.cpu = self.containers = self.storage = 0
        self.unbounded = set()
        self.unresolved = set()  # variables without a default standing in an amount
        self.unknown = set()  # resources an amount in them waits for such a variable
        self.entries = []
        self.security = security or {}  # target -> pod security findings (app/definitions/pod_security.py)
        self.routes = []  # which service answers where (app/definitions/routes.py)
        self.claims = []  # a Compose file's named volumes, claims on a cluster (on_kubernetes/mounts.py)
        self.builds = []  # the Compose services `up` would build
        self.published = []  # the host ports Compose's `up` would bind: (port, protocol)
        self.shared = []  # places naming an engine's volumes, networks or containers beyond the project

    def add_surplus(self, resource, amount):
        """What a pod's largest init container needs beyond its containers (kubernetes._initialized)."""
        setattr(self, resource, getattr(self, resource) + amount)

    def add_containers(self, count, memory, cpu, name, problems, floor=None, short_form=False, at=None):
        """`count` containers each declaring `memory` bytes and `cpu` millicores (None: nothing;
        PENDING: a variable); a PENDING count is taken as 1 and makes every resource unknown."""
        entry = {"name": name, "count": count, "memory": memory, "cpu": cpu}
        if count is PENDING:
            self.unknown.update(RESOURCES)
            entry["count"], count = "unknown", 1
        self.containers += count
        for resource, amount in (("memory", memory), ("cpu", cpu)):
            if amount is PENDING:
                self.unknown.add(resource)
                entry[resource], amount = "unknown", None
            if amount is None:
                self.unbounded.add(f"{name}: {resource}")
            setattr(self, resource, getattr(self, resource) + count * (amount or 0))
        if floor:
            entry["floor"] = floor
        if short_form:
            entry["shortForm"] = True
        if at is not None:
            entry["at"] = list(at)
        self.entries.append(entry)
        self._check(name, problems)

    def add_storage(self, amount, name, problems):
        if amount is PENDING:
            self.unknown.add("storage")
            amount = 0
        self.storage += amount
        self._check(name, problems)

    def _check(self, name, problems):
        if self.memory > INT64 or self.cpu > INT64 or self.containers > INT64 or self.storage > INT64:
            problems.append(f"{name}: the totals are larger than a 64-bit integer.")

    def as_dict(self):
        """The requirements; `perContainer`, `unknownResources`, `podSecurity` and `claims` are
        kept for fits, `builds`, `published` and `shared` for a delivery to an engine, not shown; `routes`
        are the blueprint's."""
        return {
            "memoryBytes": self.memory,
            "cpuMillis": self.cpu,
            "containers": self.containers,
            "storageBytes": self.storage,
            "unbounded": sorted(self.unbounded),
            "unresolved": sorted(self.unresolved),
            "unknownResources": sorted(self.unknown),
            "perContainer": self.entries,
            "podSecurity": self.security,
            "routes": self.routes,
            "claims": self.claims,
            "builds": self.builds,
            "published": self.published,
            "shared": self.shared,
        }


def declared(requirements, amounts):
    """The requirements once `amounts` ({index of a `perContainer` entry: {resource: amount}}) are
    declared by the containers that lacked them: what measuring the definition they were written
    into (app/definitions/defaults.py) finds, without reading it again. Each entry stands for
    nodes of its own only where no node is shared (no anchor in the text): the caller measures
    again otherwise."""
    entries = [dict(entry) for entry in requirements["perContainer"]]
    changed = {**requirements, "perContainer": entries}
    for index, written in amounts.items():
        entry = entries[index]
        count = 1 if entry["count"] == "unknown" else entry["count"]
        for resource, amount in written.items():
            entry[resource] = amount
            changed[PER_CONTAINER[resource][0]] += count * amount
    changed["unbounded"] = sorted(
        {
            f"{entry['name']}: {resource}"
            for entry in entries
            for resource in ("memory", "cpu")
            if entry[resource] in (None, "unknown")
        }
    )
    return changed
