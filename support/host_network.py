"""One lock, over every worker of a test run, on the host's network interfaces: Chromium fails the
requests it has in flight (net::ERR_NETWORK_CHANGED) whenever a Docker Engine adds or removes a
project's network, so a browser (sharing the lock with other browsers) never runs while an
engine's test, start or stop (holding it alone) does, whichever workers run them.

An interface that comes up changes the host's addresses once more a second or two later: its IPv6
link-local address is tentative until the kernel's duplicate address detection passes, and
Chromium sees it turn usable as a change. So an engine's holder lets go only once the host's
addresses have settled, and a browser loads a page only then (`settle`)."""

import fcntl
import time
from contextlib import contextmanager
from pathlib import Path

ADDRESSES = Path("/proc/net/if_inet6")
INTERFACES = Path("/sys/class/net")
TENTATIVE, DAD_FAILED = 0x40, 0x08  # IFA_F_* flags, as /proc/net/if_inet6 writes them in hex
SETTLE_SECONDS = 10  # duplicate address detection takes about 1-2 s (one probe, a second apart)


class HostNetwork:
    """A lock on `path` (a file in the folder the run's workers share), shared or exclusive, held
    again by the process that holds it (a page test on an engine: exclusive, then shared)."""

    def __init__(self, path):
        self.path, self.depth, self.file, self.alone = path, 0, None, False

    @contextmanager
    def held(self, shared=False):
        if self.depth == 0:
            self.file = open(self.path, "a")  # noqa: SIM115 (open for as long as the lock is held)
            fcntl.flock(self.file, fcntl.LOCK_SH if shared else fcntl.LOCK_EX)
            self.alone = not shared
        self.depth += 1
        try:
            yield
        finally:
            self.depth -= 1
            if self.depth == 0:
                if self.alone:
                    settle()
                self.file.close()  # which releases it


def settle(seconds=SETTLE_SECONDS):
    """Return once no address of an interface that is up is tentative, or after `seconds`. An
    interface without a carrier runs no detection, and its tentative address stays so: it is
    not waited for."""
    deadline = time.monotonic() + seconds
    while tentative() and time.monotonic() < deadline:
        time.sleep(0.05)


def tentative():
    """The interfaces that are up and have an address under duplicate address detection."""
    found = set()
    for row in ADDRESSES.read_text().splitlines() if ADDRESSES.exists() else ():
        *_, flags, name = row.split()
        if int(flags, 16) & (TENTATIVE | DAD_FAILED) == TENTATIVE and _up(name):
            found.add(name)
    return found


def _up(name):
    try:
        return (INTERFACES / name / "operstate").read_text().strip() == "up"
    except OSError:  # gone meanwhile
        return False
