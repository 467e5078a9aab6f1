"""A profile's `usage`: the sum of its instances' requirements and their count, kept beside the
profile (ledgers.py), so that reading it and admitting against it cost one document whatever the
number of instances. What a change of an instance does to it, and whether a change a ledger entry
records took place; the ledger itself is the profile store's, and app/joins/admission.py uses
it."""

COUNTED = ("memoryBytes", "cpuMillis", "containers", "storageBytes")  # a requirement's amounts
FIELDS = (*COUNTED, "instances")
ZERO = dict.fromkeys(FIELDS, 0)
OBSERVED = ("containers", "memoryBytes", "cpuMillis")  # what an engine holds of them


def observed(by_environment):
    """What a profile's instances hold where they run ({environment: amounts}, as observed),
    summed; None where none is observed."""
    if not by_environment:
        return None
    return {key: sum(amounts[key] for amounts in by_environment.values()) for key in OBSERVED}


def change(new=None, old=None):
    """What replacing `old` requirements with `new` (None: no instance) changes in usage."""
    return {key: _counted(new, key) - _counted(old, key) for key in FIELDS}


def _counted(requirements, key):
    """What one instance with `requirements` (None: none) adds to `key` of usage."""
    if requirements is None:
        return 0
    return 1 if key == "instances" else requirements.get(key, 0)


def grown(delta):
    """The part of a change that a reservation adds at once: what grows."""
    return {key: max(value, 0) for key, value in delta.items()}


def freed(delta):
    """The part that waits for the settlement: what shrinks, so that usage never counts less than
    the instances that exist, even for a moment."""
    return {key: min(value, 0) for key, value in delta.items()}


def happened(entry, rev):
    """Whether the change a ledger entry records took place, given its instance's `rev` now (None:
    there is no instance)."""
    if entry["op"] == "create":
        return rev is not None
    if entry["op"] == "upgrade":
        return rev is not None and rev >= entry["rev"]
    return rev is None  # a delete
