"""Durations as Compose writes them (Go's: `1m30s`, `1.5h`, `500ms`), in the whole seconds Kubernetes
takes, rounded up."""

import math
import re

_PART = re.compile(r"([0-9]*\.?[0-9]+)(ns|us|µs|μs|ms|s|m|h|d|w)")
SECONDS = {
    "ns": 1e-9,
    "us": 1e-6,
    "µs": 1e-6,
    "μs": 1e-6,
    "ms": 1e-3,
    "s": 1,
    "m": 60,
    "h": 3600,
    "d": 86400,
    "w": 604800,
}
MOST = 2**31 - 1  # Kubernetes' int32 fields


def seconds(value, least=0):
    """Whole seconds, rounded up, at least `least`; None for what is not a duration."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        total = value / 1e9  # a bare number is nanoseconds in Compose
    elif isinstance(value, str) and value.strip() and _PART.sub("", value.strip().lstrip("+")) == "":
        total = sum(float(number) * SECONDS[unit] for number, unit in _PART.findall(value))
    elif value == "0":
        total = 0
    else:
        return None
    return min(max(math.ceil(total), least), MOST)
