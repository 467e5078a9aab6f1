"""A Compose render beside its render for Kubernetes, in `make bench`: the largest Compose file of
the corpus a cluster takes as it is, the shared 1 KB body and the largest file a render for a
cluster may write (834 KiB of it, from 41 KB), rendered in this process with a profile's container
defaults, as Compose and for a cluster, in alternating rounds of as many renders as take about
ROUND_SECONDS; the CPU of each (medians of ROUNDS rounds) and the median of the rounds' ratios, so
that a burst of another process's work weighs on one round's ratio rather than on one target."""

import statistics
import time

from app.definitions import render
from app.definitions.on_kubernetes.model import Cluster
from app.errors import Invalid
from app.model import quantities
from support import corpus, on_kubernetes

ROUNDS, ROUND_SECONDS = 15, 0.2
LIMITS = quantities.limits({"containerDefaults": {"memory": "256Mi", "cpu": "250m"}})
CLUSTER = Cluster("bench", "bench")


def largest():
    """(name, text) of the corpus's largest valid Compose file that renders for a cluster as it is
    written (Sentry's, the largest, names an image only by a variable it leaves unset, which a
    cluster refuses)."""
    paths = [path for path in corpus.folder().glob("compose/*.yml") if not path.stem.startswith("invalid")]
    for path in sorted(paths, key=lambda one: one.stat().st_size, reverse=True):
        text = path.read_text()
        try:
            render.render({"yml": text, "blueprintType": "compose"}, {}, LIMITS, cluster=CLUSTER)
        except Invalid:
            continue
        return path.stem, text
    raise LookupError("no corpus Compose file renders for a cluster")


def run(body, log=print):
    """Log the two renders' CPU for the largest corpus file and the shared body; their ratios."""
    name, text = largest()
    ratios = {}
    widest = on_kubernetes.bounded_file(500, 4)
    for label, yml in (
        (f"{name} ({len(text) // 1024} KiB)", text),
        ("the shared 1 KB body", body["yml"]),
        ("the bounds' largest: 500 services", widest),
    ):
        version = {"yml": yml, "blueprintType": "compose", "_id": "bench"}
        render.render(version, {}, LIMITS, cluster=CLUSTER)  # warm: the first render reads the schemas
        started = time.process_time()
        render.render(version, {}, LIMITS, cluster=CLUSTER)
        repeats = max(1, round(ROUND_SECONDS / (time.process_time() - started)))
        times = {"Compose": [], "Kubernetes": []}
        for _ in range(ROUNDS):
            for target, cluster in (("Compose", None), ("Kubernetes", CLUSTER)):
                started = time.process_time()
                for _ in range(repeats):
                    render.render(version, {}, LIMITS, cluster=cluster)
                times[target].append((time.process_time() - started) / repeats * 1000)
        compose, kubernetes = (statistics.median(times[target]) for target in ("Compose", "Kubernetes"))
        ratios[label] = statistics.median(k / c for c, k in zip(times["Compose"], times["Kubernetes"], strict=True))
        log(
            f"  {label:40} Compose {compose:7.2f} ms, Kubernetes {kubernetes:7.2f} ms (rounds of {repeats}): "
            f"{ratios[label]:.2f}"
        )
    return ratios
