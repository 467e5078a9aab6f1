"""What runs on an environment's engine, read through Docker's own API client (PyPI's `docker`):
the engine's version and size, and each container of a Compose project (its project and service
labels, state, health, restarts and the limits the engine holds). The listing is one request; the
limits are a container's inspection each, as the API lists none of them. What is read is
bounded: at most MOST_CONTAINERS containers, each request within SECONDS. An engine over tcp is
reached with TLS alone, its certificate checked against the environment's CA."""

import subprocess
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path
from urllib.parse import urlsplit

import docker
from flask import current_app

from app.access import sealing, ssh
from app.environments import storage

PROJECT, SERVICE = "com.docker.compose.project", "com.docker.compose.service"
MOST_CONTAINERS = 5000
INSPECTED_AT_ONCE = 8
SECONDS = 10  # each request to the engine
DOCKER_SOCKET = "/var/run/docker.sock"  # an engine's socket on its host, unless an ssh endpoint names another
TLS_FILES = {"ca": "ca.pem", "cert": "cert.pem", "key": "key.pem"}  # Docker's names (DOCKER_CERT_PATH)


class Unreachable(Exception):
    """The engine could not be read, and why."""


def listing(environment):
    """{"engine": {version, cpus, memoryBytes}, "containers": [...]} of the environment's engine:
    each container of a Compose project as `container` reads it."""
    try:
        with _client(environment) as client:
            info = client.info()
            listed = client.containers(all=True, filters={"label": PROJECT}, limit=MOST_CONTAINERS + 1)
            if len(listed) > MOST_CONTAINERS:
                raise Unreachable(f"The engine runs more than {MOST_CONTAINERS} containers of Compose projects.")
            with ThreadPoolExecutor(INSPECTED_AT_ONCE) as pool:
                inspected = list(pool.map(lambda one: _inspected(client, one["Id"]), listed))
    except (docker.errors.DockerException, OSError) as exc:
        raise Unreachable(f"The engine did not answer: {_short(exc)}") from None
    engine = {"version": info.get("ServerVersion"), "cpus": info.get("NCPU"), "memoryBytes": info.get("MemTotal")}
    return {"engine": engine, "containers": [container(one) for one in inspected if one is not None]}


def remove_strays(environment, project, services):
    """Remove the containers of `project` that none of `services` holds (a container started by
    hand with the project's labels, which Compose's `--remove-orphans` does not see as its own);
    the names removed."""
    try:
        with _client(environment) as client:
            listed = client.containers(all=True, filters={"label": f"{PROJECT}={project}"}, limit=MOST_CONTAINERS)
            strays = [one for one in listed if (one.get("Labels") or {}).get(SERVICE) not in services]
            for one in strays:
                client.remove_container(one["Id"], force=True)
    except (docker.errors.DockerException, OSError) as exc:
        raise Unreachable(f"The engine did not answer: {_short(exc)}") from None
    return sorted(name.lstrip("/") for one in strays for name in one["Names"][:1])


def checked(environment):
    """Where the environment's engine is (its `addresses.Remote` over tcp or ssh, None at a unix
    socket), once the operator's settings let it be reached: checked at every connection, as on
    every write; Unreachable saying why not."""
    try:
        return storage.engine_checked(environment["endpoint"], current_app.config, environment.get("knownHosts"))
    except ValueError as exc:
        raise Unreachable(f"The engine may not be reached: {exc}") from None


@contextmanager
def reached(environment):
    """(a Docker endpoint, the folder of its TLS files or None) for the block, once the engine may
    be reached: a unix socket as it is; over tcp, the environment's CA and client key pair
    unsealed into Docker's files (`ca.pem`, `cert.pem`, `key.pem`, the owner's alone); over ssh,
    the engine's socket forwarded to a unix socket here by ssh (access/ssh.py: the address checked,
    the environment's host keys and deploy key). What it makes is gone when the block ends."""
    remote = checked(environment)
    if remote is None:
        yield environment["endpoint"], None
        return
    with tempfile.TemporaryDirectory(prefix="engine-") as folder:
        if remote.scheme == "ssh":
            with _forwarded(environment, remote, Path(folder)) as endpoint:
                yield endpoint, None
            return
        tls = _unsealed(environment, "tls")
        if tls is None:
            raise Unreachable("An engine over tcp is reached with TLS only: give its CA and a client key pair.")
        for field, name in TLS_FILES.items():
            path = Path(folder) / name
            path.touch(mode=0o600)
            path.write_text(tls[field])
        yield environment["endpoint"], Path(folder)


@contextmanager
def _forwarded(environment, remote, folder):
    """`unix://FOLDER/d.sock`, forwarded by ssh to the engine's socket on its host while the block runs."""
    parts = urlsplit(environment["endpoint"])
    local, there = folder / "d.sock", parts.path if parts.path not in ("", "/") else DOCKER_SOCKET
    command = ssh.command(remote, str(folder), _unsealed(environment, "deployKey"), environment.get("knownHosts"))
    command += ["-o", "ExitOnForwardFailure=yes", "-N", "-L", f"{local}:{there}", "-p", str(remote.port)]
    command += ["-l", parts.username, "--", remote.host]
    process = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + SECONDS
        while not local.exists():
            if process.poll() is not None or time.monotonic() > deadline:
                said = (process.stderr.read() if process.poll() is not None else b"").decode(errors="replace")
                raise Unreachable(f"ssh did not reach the engine: {said.strip()[-300:] or 'no answer in time'}")
            time.sleep(0.02)
        yield f"unix://{local}"
    finally:
        process.terminate()
        process.wait(timeout=SECONDS)
        process.stderr.close()


def _unsealed(environment, name):
    try:
        return sealing.unsealed(environment, name, storage.store.collection)
    except ValueError as exc:
        raise Unreachable(str(exc)) from None


class _Client(docker.APIClient):
    """Docker's API client, deaf to the process's environment: requests lets `CURL_CA_BUNDLE` or
    `REQUESTS_CA_BUNDLE` replace a session's CA (psf/requests#3829), and `*_PROXY` send an engine's
    traffic elsewhere; an environment is reached with its own CA, directly."""

    @property
    def trust_env(self):
        return False

    @trust_env.setter
    def trust_env(self, value):
        """requests.Session sets it; it stays off."""


@contextmanager
def _client(environment):
    """Docker's API client for the environment's engine, its certificate checked against the
    environment's CA over tcp."""
    with reached(environment) as (endpoint, folder):
        try:
            if folder is None:
                client = _Client(base_url=endpoint, timeout=SECONDS)
            else:
                pair = (str(folder / TLS_FILES["cert"]), str(folder / TLS_FILES["key"]))
                tls = docker.tls.TLSConfig(client_cert=pair, ca_cert=str(folder / TLS_FILES["ca"]), verify=True)
                client = _Client(base_url=f"https://{endpoint[len('tcp://') :]}", tls=tls, timeout=SECONDS)
        except (docker.errors.DockerException, OSError) as exc:
            raise Unreachable(f"The engine did not answer: {_short(exc)}") from None
        with client:
            yield client


def _inspected(client, container_id):
    """The container's inspection, or None where it went since the listing."""
    try:
        return client.inspect_container(container_id)
    except docker.errors.NotFound:
        return None


def container(inspected):
    """{project, service, name, state, health, restarts, memoryBytes, cpuMillis} of an inspection;
    a limit the engine does not hold is None."""
    labels, state, host = inspected["Config"].get("Labels") or {}, inspected["State"], inspected["HostConfig"]
    nano, quota, period = host.get("NanoCpus") or 0, host.get("CpuQuota") or 0, host.get("CpuPeriod") or 100000
    cpu = nano // 1_000_000 if nano else (quota * 1000 // period if quota > 0 else None)
    return {
        "project": labels.get(PROJECT),
        "service": labels.get(SERVICE),
        "name": inspected["Name"].lstrip("/"),
        "state": state.get("Status"),
        "health": (state.get("Health") or {}).get("Status"),
        "restarts": inspected.get("RestartCount", 0),
        "memoryBytes": host.get("Memory") or None,
        "cpuMillis": cpu,
    }


def _short(exc):
    return str(exc).splitlines()[0][:300] if str(exc) else type(exc).__name__
