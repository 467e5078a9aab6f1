"""The one launcher of gunicorn for the tests, `make bench` and `make fault-test`: the service as
`make run` starts it (or the benchmark's baseline), on a free port, in its own process group,
with an environment that holds none of the caller's settings."""

import http.client
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

from app import config
from support.http import SocketClient
from support.ports import free_port

ROOT = Path(__file__).resolve().parent.parent
GUNICORN = str(Path(sys.executable).with_name("gunicorn"))


def environment(**settings):
    """This process's environment without any variable the service reads, plus `settings`."""
    clean = {name: value for name, value in os.environ.items() if name not in config.VARIABLES}
    return {**clean, **{name: str(value) for name, value in settings.items()}}


def cpu_seconds(pid):
    """CPU time (user and system) process `pid` has used so far."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


class Gunicorn:
    """`gunicorn ARGS APP` with the service's settings given as keyword arguments."""

    def __init__(self, *args, app="wsgi:app", cwd=ROOT, stderr=subprocess.DEVNULL, **settings):
        self.port, self.args, self.app = free_port(), args or ("-c", "gunicorn.conf.py"), app
        self.cwd, self.stderr, self.env = cwd, stderr, environment(**settings)
        self.process = None

    @property
    def command(self):
        return [GUNICORN, *self.args, "--bind", f"127.0.0.1:{self.port}", self.app]

    def start(self, probe="/readyz", timeout=60, attempts=3):
        """Start it and wait until `probe` answers without a server error. A free port is only free
        when it is chosen: where another process of a parallel test run took it meanwhile (this
        port, or the embedded database's), gunicorn exits at once, and starts again on another."""
        for attempt in range(attempts):
            if attempt:
                self.port = free_port()
            self.process = subprocess.Popen(
                self.command,
                cwd=self.cwd,
                env=self.env,
                stdout=subprocess.DEVNULL,
                stderr=self.stderr,
                start_new_session=True,
            )
            if self._answers(probe, time.monotonic() + timeout):
                return self
        raise RuntimeError("gunicorn exited during start-up")

    def _answers(self, probe, deadline):
        """Whether it answered `probe` without a server error before `deadline` (False: it exited)."""
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                return False
            try:
                if SocketClient(self.port).get(probe).status < 500:
                    return True
            except (OSError, http.client.HTTPException):
                pass
            time.sleep(0.2)
        self.kill()
        raise RuntimeError("gunicorn did not start")

    def stop(self):
        """SIGTERM to the master, which stops its workers (and the embedded database); its exit code."""
        self.process.send_signal(signal.SIGTERM)
        return self.process.wait(timeout=60)

    def kill(self):
        """kill -9 of the master and every process of its group, with no goodbyes."""
        os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait()

    def children(self):
        """(pid, command line) of each child of the master: its workers and the embedded database."""
        found = []
        for proc in Path("/proc").iterdir():
            try:
                parent = int((proc / "stat").read_text().rsplit(")", 1)[1].split()[1])
                if parent == self.process.pid:
                    found.append((int(proc.name), (proc / "cmdline").read_bytes()))
            except (OSError, ValueError, IndexError):
                continue
        return found

    def worker_cpu_seconds(self):
        """CPU time (user and system) the workers have used so far."""
        return sum(cpu_seconds(pid) for pid, cmdline in self.children() if b"gunicorn" in cmdline)

    def worker_rss_mb(self, field="VmRSS"):
        """Resident memory of each worker, in MB: now (VmRSS), or the most it has had (VmHWM)."""
        sizes = []
        for pid, cmdline in self.children():
            if b"gunicorn" in cmdline:
                status = Path(f"/proc/{pid}/status").read_text()
                sizes.append(int(re.search(rf"{field}:\s+(\d+) kB", status).group(1)) / 1024)
        return sizes
