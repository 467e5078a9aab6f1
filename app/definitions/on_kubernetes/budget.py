"""What holds a namespace to a budget on a cluster: a ResourceQuota of amounts (`limits.memory`,
`limits.cpu`, `requests.storage`, and `pods` where the profile leaves room for the cluster's own)
and the LimitRange of a profile's container defaults and maximum. A profile exports as both
(app/imports/quota.py); an instance on Kubernetes lives in a namespace of its own that carries its
admitted requirements as the quota and its profile's LimitRange. A profile's `cluster.headroom`
is counted in those requirements, so the room the cluster's own pods take is paid for."""

from app.model import quantities

HARD = {"limits.memory": "memoryBytes", "limits.cpu": "cpuMillis", "requests.storage": "storageBytes"}


def quantity(amount, key):
    """An amount (bytes or millicores, keyed as requirements and limits key them) as a quantity."""
    return quantities.millis_text(amount) if key == "cpuMillis" else quantities.binary_text(amount)


def headroom_of(conventions):
    """A profile's `cluster.headroom` in requirements' units ({pods, memoryBytes, cpuMillis}, each
    0 where unset); None where it has none."""
    given = conventions.get("headroom")
    if not given:
        return None
    amounts = {
        key: grammar.parse(given[member]) if given.get(member) is not None else 0
        for member, (key, grammar) in quantities.PER_CONTAINER.items()
    }
    return {"pods": given.get("pods") or 0, **amounts}


def with_headroom(requirements, headroom):
    """The requirements of an instance on a cluster with the profile's `headroom` (headroom_of)
    counted: its memory and CPU added, each of its pods a container; `headroom` kept beside them,
    which the quota reads. Requirements that count it already are returned as they are."""
    if headroom is None or "headroom" in requirements:
        return requirements
    counted = {key: requirements[key] + headroom[key] for key in ("memoryBytes", "cpuMillis")}
    return {
        **requirements,
        **counted,
        "containers": requirements["containers"] + headroom["pods"],
        "headroom": headroom,
    }


def pods_of(requirements):
    """How many pods the workloads of measured requirements run: each pod template's first
    container, by its count."""
    return sum(
        entry["count"]
        for entry in requirements["perContainer"]
        if entry.get("at", ())[-2:] == ["containers", 0] and entry["count"] != "unknown"
    )


def resource_quota(metadata, amounts):
    """A ResourceQuota whose hard limits are `amounts` (keyed as HARD's values; None: not held),
    and with a headroom of pods, the pods the workloads run and it."""
    hard = {field: quantity(amounts[key], key) for field, key in HARD.items() if amounts.get(key) is not None}
    if (amounts.get("headroom") or {}).get("pods"):
        hard["pods"] = str(pods_of(amounts) + amounts["headroom"]["pods"])
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
