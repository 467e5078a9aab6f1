"""Requirements as the API answers them, for the tests that compare them."""


def need(memory=0, cpu=0, containers=0, storage=0, unbounded=(), unresolved=()):
    return {"memoryBytes": memory, "cpuMillis": cpu, "containers": containers, "storageBytes": storage,
            "unbounded": sorted(unbounded), "unresolved": sorted(unresolved)}  # fmt: skip
