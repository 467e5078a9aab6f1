"""A real Docker Engine for the tests that deliver: Debian's dockerd, started by hand in a short
folder of its own (a unix socket's path holds at most about 108 bytes) with the host's firewall,
forwarding and default bridge untouched, and an image built on it from Debian's static busybox
(no registry is reachable). Tests that need it skip, saying why, where it cannot run: not root,
or the Debian packages docker.io and busybox-static missing (`make test` installs them as root)."""

import os
import shutil
import signal
import subprocess
import tempfile
import time
from pathlib import Path

import pytest

DOCKERD = Path("/usr/sbin/dockerd")
BUSYBOX = Path("/bin/busybox")
IMAGE = "busybox:local"
DOCKER = shutil.which("docker") or "/usr/bin/docker"
START_SECONDS = 30


def why_not():
    """Why no engine can run here, or None."""
    if os.geteuid() != 0:
        return "dockerd runs as root"
    if not DOCKERD.exists() or not Path(DOCKER).exists():
        return "the Debian package docker.io is not installed"
    if not BUSYBOX.exists():
        return "the Debian package busybox-static is not installed (a static busybox to build an image from)"
    linked = subprocess.run(["/usr/bin/ldd", str(BUSYBOX)], capture_output=True, text=True)
    if "not a dynamic executable" not in linked.stdout + linked.stderr:
        return "the Debian package busybox-static is not installed (a static busybox to build an image from)"
    return None


class Engine:
    """dockerd in `folder`, at `folder`/docker.sock."""

    def __init__(self):
        self.folder = Path(tempfile.mkdtemp(prefix="dk", dir="/tmp"))
        self.socket = self.folder / "d.sock"
        self.process = None

    def start(self):
        arguments = [
            str(DOCKERD),
            "--storage-driver=overlay2",
            "--iptables=false",
            "--ip-forward=false",
            "--ip-masq=false",
            "--bridge=none",
            f"--data-root={self.folder / 'root'}",
            f"--exec-root={self.folder / 'x'}",
            f"--host=unix://{self.socket}",
            f"--pidfile={self.folder / 'd.pid'}",
        ]
        log = open(self.folder / "dockerd.log", "wb")  # noqa: SIM115 (the daemon's, for as long as it runs)
        self.process = subprocess.Popen(arguments, stdout=log, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + START_SECONDS
        while self.docker("version", check=False).returncode != 0:
            if self.process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"dockerd did not start: {(self.folder / 'dockerd.log').read_text()[-2000:]}")
            time.sleep(0.1)
        return self

    def docker(self, *arguments, check=True):
        """The docker command line against this engine."""
        environ = {**os.environ, "DOCKER_HOST": f"unix://{self.socket}", "DOCKER_CONFIG": str(self.folder)}
        return subprocess.run([DOCKER, *arguments], capture_output=True, text=True, env=environ, check=check)

    def build_image(self):
        """IMAGE: busybox on nothing, every applet installed."""
        context = self.folder / "image"
        context.mkdir()
        shutil.copy(BUSYBOX, context / "busybox")
        (context / "Dockerfile").write_text(
            'FROM scratch\nCOPY busybox /bin/busybox\nRUN ["/bin/busybox", "--install", "-s"]\n'
        )
        self.docker("build", "-q", "-t", IMAGE, str(context))

    def stop(self):
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        for namespace in (self.folder / "x" / "netns").glob("*"):
            subprocess.run(["/usr/bin/umount", str(namespace)], capture_output=True)
        subprocess.run(["/usr/bin/umount", "-R", str(self.folder / "root")], capture_output=True)
        shutil.rmtree(self.folder, ignore_errors=True)


@pytest.fixture(scope="module")
def engine():
    """A running engine with IMAGE built on it, for the tests of one module."""
    if reason := why_not():
        pytest.skip(f"no Docker Engine: {reason}")
    running = Engine()
    try:
        running.start().build_image()
        yield running
    finally:
        running.stop()
