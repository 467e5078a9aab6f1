"""What listing a followed repository's tree costs a worker (`make bench --only sources`): a git
bomb (a few kilobytes packed, 1,000,000 paths: refused at the 5,001st), the largest tree the
bounds let through (5,000 files) and a catalog's ordinary size (300 files), each listed in a
process of its own so that its peak resident memory (VmHWM) is its own: the time to the answer
and how much the peak grew over the process's memory before the listing."""

import multiprocessing
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

from flask import Flask

from app.sources import git

CASES = {
    "git bomb, 10^6 paths": (10, 10, 10, 10, 10, 10),
    "at the bound, 5,000 files": (5_000,),
    "a catalog, 300 files": (300,),
}


def _git(folder, *arguments, data=None):
    return subprocess.run(
        [shutil.which("git"), "-C", str(folder), *arguments], input=data, capture_output=True, text=True, check=True
    ).stdout.strip()


def _repository(folder, widths):
    """A bare repository whose one commit holds nested trees of one blob (`widths` a level)."""
    _git(folder, "init", "--bare", "--quiet")
    entry = ("100644", "blob", _git(folder, "hash-object", "-w", "--stdin", data="x\n"))
    for width in reversed(widths):
        lines = "".join(f"{entry[0]} {entry[1]} {entry[2]}\t{index}\n" for index in range(width))
        entry = ("040000", "tree", _git(folder, "mktree", data=lines))
    tree = _git(folder, "mktree", data=f"{entry[0]} {entry[1]} {entry[2]}\tbomb\n")
    return _git(folder, "-c", "user.name=b", "-c", "user.email=b@b", "commit-tree", tree, "-m", "bomb")


def _memory_kb(field):
    line = next(one for one in Path("/proc/self/status").read_text().splitlines() if one.startswith(field))
    return int(line.split()[1])


def _listed(folder, commit, answer):
    app = Flask(__name__)
    app.config["SOURCE_FETCH_SECONDS"] = 120
    with app.app_context():
        before, started = _memory_kb("VmRSS:"), time.monotonic()
        try:
            names = len(git.Tree({"PATH": "/usr/bin:/bin"}, str(folder), commit, "").names)
            outcome = f"{names} files listed"
        except git.FetchFailed as exc:
            outcome = f"refused: {str(exc)[:48]}"
        answer.put((time.monotonic() - started, (_memory_kb("VmHWM:") - before) / 1024, outcome))


def run():
    print("\nlisting a followed repository's tree (a process each: time, peak memory grown, outcome)")
    for name, widths in CASES.items():
        with tempfile.TemporaryDirectory(prefix="bench-git-") as folder:
            commit = _repository(folder, widths)
            answer = multiprocessing.get_context("fork").Queue()
            child = multiprocessing.get_context("fork").Process(target=_listed, args=(folder, commit, answer))
            child.start()
            seconds, grown, outcome = answer.get(timeout=300)
            child.join()
            print(f"  {name:28} {seconds * 1000:8.1f} ms {grown:7.1f} MiB  {outcome}")
