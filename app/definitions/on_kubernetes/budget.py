"""What holds a namespace to a budget on a cluster: a ResourceQuota of amounts (`limits.memory`,
`limits.cpu`, `requests.storage`) and the LimitRange of a profile's container defaults and maximum.
A profile exports as both (app/imports/quota.py); an instance on Kubernetes lives in a namespace
of its own that carries its admitted requirements as the quota and its profile's LimitRange."""

from app.model import quantities

HARD = {"limits.memory": "memoryBytes", "limits.cpu": "cpuMillis", "requests.storage": "storageBytes"}


def quantity(amount, key):
    """An amount (bytes or millicores, keyed as requirements and limits key them) as a quantity."""
    return quantities.millis_text(amount) if key == "cpuMillis" else quantities.binary_text(amount)


def resource_quota(metadata, amounts):
    """A ResourceQuota whose hard limits are `amounts` (keyed as HARD's values; None: not held)."""
    hard = {field: quantity(amounts[key], key) for field, key in HARD.items() if amounts.get(key) is not None}
    return {"apiVersion": "v1", "kind": "ResourceQuota", "metadata": metadata, "spec": {"hard": hard}}


def limit_range(metadata, limits):
    """The LimitRange of a profile's container defaults and maximum (`limits`:
    quantities.limits), None where it has neither."""
    item = {"type": "Container"}
    for field, into in (("containerDefaults", "default"), ("containerMax", "max")):
        amounts = {
            member: quantity(limits[field][key], key)
            for member, (key, _) in quantities.PER_CONTAINER.items()
            if limits[field][key] is not None
        }
        if amounts:
            item[into] = amounts
    if len(item) == 1:
        return None
    return {"apiVersion": "v1", "kind": "LimitRange", "metadata": metadata, "spec": {"limits": [item]}}
