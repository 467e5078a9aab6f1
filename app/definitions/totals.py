"""What the containers of a definition declare, summed as a format's `measure` reads them."""

from app.model.quantities import INT64


class Totals:
    """Sums of what the containers of a definition declare, and who declares nothing."""

    def __init__(self):
        self.memory = self.cpu = self.containers = self.storage = 0
        self.unbounded = set()
        self.unresolved = set()  # variables without a default standing in an amount

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
        if self.memory > INT64 or self.cpu > INT64 or self.containers > INT64 or self.storage > INT64:
            problems.append(f"{name}: the totals are larger than a 64-bit integer.")

    def as_dict(self):
        return {
            "memoryBytes": self.memory,
            "cpuMillis": self.cpu,
            "containers": self.containers,
            "storageBytes": self.storage,
            "unbounded": sorted(self.unbounded),
            "unresolved": sorted(self.unresolved),
        }
