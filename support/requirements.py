"""Requirements as the API answers them, for the tests that compare them."""

# kept for fits, routes and deliveries, not shown
HIDDEN = ("perContainer", "unknownResources", "podSecurity", "routes", "claims", "builds", "published", "shared")


def need(memory=0, cpu=0, containers=0, storage=0, unbounded=(), unresolved=()):
    return {
        "memoryBytes": memory,
        "cpuMillis": cpu,
        "containers": containers,
        "storageBytes": storage,
        "unbounded": sorted(unbounded),
        "unresolved": sorted(unresolved),
    }


def shown(requirements):
    """Requirements as measured (or stored), as the API shows them."""
    return None if requirements is None else {k: v for k, v in requirements.items() if k not in HIDDEN}
