"""Loopback ports for the servers the tests start (the embedded database, gunicorn, dockerd,
nginx, Traefik, git servers, the OpenID provider)."""

import random
import socket
from pathlib import Path

EPHEMERAL = Path("/proc/sys/net/ipv4/ip_local_port_range")
_chooser = random.SystemRandom()  # never seeded: no two workers draw the same ports, whatever seeds `random`


def free_port():
    """A loopback port free now, chosen outside the kernel's ephemeral range. A port a bind to port
    0 returns is one the kernel also gives outgoing connections: in a parallel run, a client of
    another test could take it before the server it was chosen for binds it."""
    low, high = map(int, EPHEMERAL.read_text().split()) if EPHEMERAL.exists() else (32768, 60999)
    outside = [*range(10000, low), *range(high + 1, 65536)]
    for port in _chooser.sample(outside, 50):
        with socket.socket() as probe:
            try:
                probe.bind(("127.0.0.1", port))
            except OSError:
                continue
            return port
    raise RuntimeError("no free loopback port outside the ephemeral range")
