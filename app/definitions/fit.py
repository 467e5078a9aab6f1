"""Whether a blueprint fits a profile: its requirements against the profile's caps, resource by
resource, in the units of `limits` (bytes, millicores, containers)."""

from app import definitions
from app.model import quantities

# resource -> its key in both `requirements` and `limits`
RESOURCES = {"memory": "memoryBytes", "cpu": "cpuMillis", "containers": "containers", "storage": "storageBytes"}
FITTING = ("fits", "uncapped")


def fit(requirements, limits):
    """`{"fits": ..., "resources": {...}}` as the contract defines it: each resource's required
    amount, cap, headroom and verdict (fits, exceeds, uncapped, unbounded, or unknown when the
    blueprint has no requirements)."""
    resources = {}
    unbounded = {entry.rsplit(": ", 1)[1] for entry in (requirements or {}).get("unbounded", ())}
    for resource, key in RESOURCES.items():
        cap = limits[key]
        required = None if requirements is None else requirements[key]
        if required is None:
            verdict = "unknown"
        elif cap is None:
            verdict = "uncapped"
        elif resource in unbounded:
            verdict = "unbounded"
        else:
            verdict = "fits" if required <= cap else "exceeds"
        headroom = None if required is None or cap is None else cap - required
        resources[resource] = {"required": required, "cap": cap, "headroom": headroom, "verdict": verdict}
    fits = None if requirements is None else all(r["verdict"] in FITTING for r in resources.values())
    return {"fits": fits, "resources": resources}


def fits(requirements, limits):
    return fit(requirements, limits)["fits"] is True


def blueprints_fitting(profile_limits):
    """The list filter `fitsProfile`: a predicate of stored blueprints."""
    return lambda blueprint: fits(definitions.requirements_of(blueprint), profile_limits)


def profiles_fitted_by(requirements):
    """The list filter `fits`: a predicate of stored profiles."""
    return lambda profile: fits(requirements, quantities.limits(profile))
