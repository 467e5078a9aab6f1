"""bpctl against a real service: the test users' service on a socket (the embedded database behind
it), run through Click's CliRunner or, where the process itself is what a test checks, as the
installed program in a process of its own; always with a configuration folder and environment of
its own (whatever the caller exported)."""

import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from click.testing import CliRunner

from bpctl.cli import cli

PROGRAM = Path(sys.executable).parent / "bpctl"  # the entry point `pip install` made
VARIABLES = ("BPCTL_URL", "BPCTL_TOKEN", "BPCTL_USERNAME", "BPCTL_PASSWORD", "XDG_CONFIG_HOME")


@dataclass
class Result:
    code: int
    out: str
    err: str


class Bpctl:
    """bpctl as one user runs it: `url` is the service, `home` their configuration folder."""

    def __init__(self, url, home):
        self.url, self.home = url, Path(home)

    def env(self, **extra):
        """Only what the test gives: the caller's own BPCTL_* and XDG_* are never seen."""
        return {"BPCTL_URL": self.url, "XDG_CONFIG_HOME": str(self.home), **extra}

    def __call__(self, *args, input=None, **env):
        """Run in this process through Click's CliRunner: its exit code, and its standard output and
        error apart, as text. A crash is raised with its traceback rather than read as an exit code.
        What only a process of its own shows (pipes, the process list, a missing terminal) is run
        with `process` or `run`."""
        cleared = {name: None for name in VARIABLES}
        result = CliRunner().invoke(cli, list(args), input=input, env={**cleared, **self.env(**env)})
        if result.exception and not isinstance(result.exception, SystemExit):
            raise result.exception
        return Result(result.exit_code, result.stdout, result.stderr)

    def process(self, *args, input=None, **env):
        """Run the installed program in a process of its own, as a person or a script runs it: its
        exit code, and its standard output and error apart, as text."""
        given = input.encode() if isinstance(input, str) else input
        done = self.run(*args, input=given, **env)
        return Result(done.returncode, done.stdout.decode(errors="replace"), done.stderr.decode(errors="replace"))

    def environ(self, **env):
        """The environment of a process of its own: this process's, without any BPCTL_* or XDG_*."""
        clean = {key: value for key, value in os.environ.items() if not key.startswith(("BPCTL_", "XDG_"))}
        return {**clean, **self.env(**env)}

    def run(self, *args, input=None, **env):
        """Run the installed program in a process of its own."""
        return subprocess.run([PROGRAM, *args], input=input, capture_output=True, env=self.environ(**env), timeout=60)
