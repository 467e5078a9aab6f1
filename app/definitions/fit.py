"""Whether a blueprint fits a profile: its requirements against the profile's caps, resource by
resource, in the units of `limits` (bytes, millicores, containers), with the profile's container
defaults counted for the containers that declare nothing and its container maximum applied to
each, as a Kubernetes LimitRange does before its ResourceQuota counts."""

from app.definitions import pod_security
from app.model import prices, quantities

# resource -> its key in both `requirements` and `limits`
RESOURCES = {"memory": "memoryBytes", "cpu": "cpuMillis", "containers": "containers", "storage": "storageBytes"}
PER_CONTAINER = ("memory", "cpu")
FITTING = ("fits", "uncapped")
SHOWN = {"memory": quantities.binary_text, "cpu": quantities.millis_text}


def fit(requirements, limits, usage=None, target=None):
    """`{"fits": ..., "more": ..., "resources": {...}}` as the contract defines it: each
    resource's required amount (the profile's defaults included), what the profile's instances use
    (`usage`, None: nothing) and the room left, the headroom after it, the verdict (fits, exceeds,
    uncapped, unbounded, or unknown: no requirements, or an amount waiting for a variable), and
    the containers that took a default (`defaulted`) or are over the maximum (`overMax`); `more`,
    how many instances of it fit in the room left. With a level in `limits` (`podSecurity`), what
    the definition breaks of it on `target` (None: the definition's own format)."""
    resources = {resource: _resource(resource, requirements, limits, usage or {}) for resource in RESOURCES}
    verdicts = {r["verdict"] for r in resources.values()}
    if "exceeds" in verdicts:
        fits = False
    elif "unknown" in verdicts:
        fits = None
    else:
        fits = verdicts <= set(FITTING)
    answer = {"fits": fits, "more": _more(fits, resources), "resources": resources}
    answer["cost"] = prices.cost(_priced(requirements, limits, resources), limits.get("prices"))
    if "podSecurity" in limits:
        answer["podSecurity"] = security(requirements, limits["podSecurity"], target)
    return answer


def security(requirements, level, target=None):
    """`{"level", "violations"}`: the pod security findings of the definition on `target` that
    `level` refuses (a Compose definition's own target is `compose`)."""
    findings = (requirements or {}).get("podSecurity") or {}
    target = target or ("compose" if "compose" in findings else "kubernetes")
    return {"level": level, "violations": pod_security.violations(findings.get(target, []), level)}


def fits(requirements, limits, usage=None):
    """Whether the fit is true (the list filters' question)."""
    return fit(requirements, limits, usage)["fits"] is True


def room(required, cap):
    """The room rule, the one place it is written: `required` more fits under `cap` (None:
    uncapped) while what is used is at most this. A fit reads it; so does a ledger's reservation,
    as the condition of its write (app/profiles/storage.py)."""
    return None if cap is None else cap - required


def growth(delta, limits, usage):
    """Each capped resource a change of usage grows, as `fit` reports a resource, judged by the
    room rule alone: what a reservation that lost a race asks again."""
    grown = {name: key for name, key in RESOURCES.items() if delta[key] > 0 and limits[key] is not None}
    return {
        name: {
            "required": delta[key],
            "used": usage[key],
            "cap": limits[key],
            "available": limits[key] - usage[key],
            "verdict": "fits" if usage[key] <= room(delta[key], limits[key]) else "exceeds",
            "overMax": [],
        }
        for name, key in grown.items()
    }


def _more(fits, resources):
    """How many instances fit in the room left: the fewest any capped resource holds (0 when one
    does not fit; None when it is not known, or nothing caps what it needs)."""
    if fits is None:
        return None
    if not fits:
        return 0
    capped = [r for r in resources.values() if r["available"] is not None and r["required"]]
    times = [r["available"] // r["required"] for r in capped]
    return min(times) if times else None


def _undeclared(requirements, resource, default):
    """Whether a container declares no amount of `resource` and the profile has no default for it."""
    return default is None and any(entry.endswith(f": {resource}") for entry in requirements["unbounded"])


def amounts(requirements):
    """What a cost prices of requirements as counted (an instance's, its profile's defaults
    written in): each resource's amount, None where it is not known."""
    return {
        RESOURCES[resource]: None
        if resource in requirements.get("unknownResources", ()) or _undeclared(requirements, resource, None)
        else requirements.get(RESOURCES[resource], 0)
        for resource in ("memory", "cpu", "storage")
    }


def _priced(requirements, limits, resources):
    """The amounts a cost prices: what each resource requires, None where that is not known (a
    variable stands in it, or a container declares none and the profile has no default)."""
    amounts = {}
    for resource in ("memory", "cpu", "storage"):
        key, judged = RESOURCES[resource], resources[resource]
        default = limits["containerDefaults"][key] if resource in PER_CONTAINER else None
        unknown = judged["verdict"] == "unknown" or _undeclared(requirements, resource, default)
        amounts[key] = None if unknown else judged["required"]
    return amounts


def _resource(resource, requirements, limits, usage):
    key, cap = RESOURCES[resource], limits[RESOURCES[resource]]
    used = usage.get(key, 0)
    available = None if cap is None else cap - used
    room_left = {"used": used, "available": available}
    if requirements is None or resource in requirements.get("unknownResources", ()):
        return {
            "required": None,
            "cap": cap,
            "headroom": None,
            "verdict": "unknown",
            **room_left,
            "defaulted": [],
            "overMax": [],
        }
    default = most = None
    if resource in PER_CONTAINER:
        default, most = limits["containerDefaults"][key], limits["containerMax"][key]
    required, defaulted, over = _per_container(requirements, resource, default, most)
    if over:
        verdict = "exceeds"
    elif cap is None:
        verdict = "uncapped"
    elif _undeclared(requirements, resource, default):
        verdict = "unbounded"
    else:
        verdict = "fits" if used <= room(required, cap) else "exceeds"
    return {
        "required": required,
        "cap": cap,
        "headroom": None if cap is None else available - required,
        "verdict": verdict,
        **room_left,
        "defaulted": sorted(set(defaulted)),
        "overMax": sorted(set(over)),
    }


def _per_container(requirements, resource, default, most):
    """(the amount required, the profile's `default` counted for each container that declares
    none; those containers; those over the maximum `most`, as `name: amount > most`)."""
    required, defaulted, over = requirements[RESOURCES[resource]], [], []
    if default is None and most is None:
        return required, defaulted, over
    for _, entry, amount, is_default in _amounts(requirements, resource, default):
        if is_default:
            required += _count(entry) * amount
            defaulted.append(entry["name"])
        if most is not None and amount > most:
            over.append(f"{entry['name']}: {SHOWN[resource](amount)} > {SHOWN[resource](most)}")
    return required, defaulted, over


def _count(entry):
    return 1 if entry["count"] == "unknown" else entry["count"]


def _amounts(requirements, resource, default):
    """(index, entry, amount, whether it is the default) of each container group of the requirements
    that declares `resource` or takes the `default` (Compose's memory no lower than what the
    service reserves: Docker starts no container whose limit is below its reservation)."""
    for index, entry in enumerate(requirements.get("perContainer", ())):
        declared = entry[resource]
        if declared is None and default is not None:
            yield index, entry, max(default, entry.get("floor", 0)) if resource == "memory" else default, True
        elif isinstance(declared, int):
            yield index, entry, declared, False


def defaulted(requirements, limits):
    """{index of a `perContainer` entry: {resource: amount}} for each container group that takes
    a profile's default: what a render writes into the definition."""
    written = {}
    for resource in PER_CONTAINER if requirements is not None else ():
        default = limits["containerDefaults"][RESOURCES[resource]]
        if default is None:
            continue
        for index, _, amount, is_default in _amounts(requirements, resource, default):
            if is_default:
                written.setdefault(index, {})[resource] = amount
    return written
