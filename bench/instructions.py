"""`make instructions`: what one POST /blueprints of the shared body costs in CPU instructions,
counted by valgrind's callgrind, which a shared, noisy machine cannot disturb (wall-clock and CPU
time on it vary by a tenth from one round to the next).

The app runs in-process (Flask's test client) on an embedded database in its own process, so
only the app is counted. Each tree is run twice under callgrind, making WARM creates and then
none or COUNTED more; the difference divided by COUNTED is a create, start-up subtracted. The
same for `make bench`'s peer, Python-Eve (bench/eve_app.py), given the same body and credentials,
and the ratio: the house rule's app CPU beside Eve, read where noise cannot move it. With
`--against REV`, the same on a worktree of that revision, and the ratio.
"""

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from app.storage import embedded  # noqa: E402

GIT, VALGRIND = shutil.which("git"), shutil.which("valgrind")
WARM, COUNTED = 200, 300
# What both children do once their app is `app`: `creates` POSTs of the shared body, as alice.
CREATES = """
client, body = app.test_client(), open(sys.argv[1] + "/bench/bodies/blueprint.json").read()
headers = {"Authorization": basic("alice"), "Content-Type": "application/json"}
for _ in range(int(sys.argv[2])):
    assert client.post("/blueprints", data=body, headers=headers).status_code == 201
"""
# Run inside callgrind with the tree to measure first on sys.path: its app, its support helpers.
CHILD = (
    """
import sys
sys.path.insert(0, sys.argv[1])
from app import create_app
from support.apps import add_users, settings
from support.http import basic
app = create_app(settings(MONGO_URI=sys.argv[3], MONGO_DB=sys.argv[4], LOG_LEVEL="warning"))
add_users(app)
"""
    + CREATES
)
# The same creates on Python-Eve, as `make bench` serves it beside the service (the last argument unused).
EVE_CHILD = (
    """
import os, sys
sys.path.insert(0, sys.argv[1])
from support.http import PASSWORD, basic
os.environ.update(MONGO_URI=sys.argv[3], BASELINE_CREDENTIALS="alice:" + PASSWORD)
from bench.eve_app import app
"""
    + CREATES
)


def instructions(child, tree, creates, uri, db):
    """Instructions callgrind counted for a process that runs `child`: it starts the app and makes
    `creates`."""
    with tempfile.TemporaryDirectory() as folder:
        out = Path(folder) / "callgrind.out"
        command = [
            VALGRIND,
            "--tool=callgrind",
            f"--callgrind-out-file={out}",
            sys.executable,
            "-c",
            child,
            str(tree),
            str(creates),
            uri,
            db,
        ]
        subprocess.run(command, check=True, capture_output=True, timeout=1800)
        summary = next(line for line in out.read_text().splitlines() if line.startswith("summary:"))
        return int(summary.split()[1])


def per_create(tree, uri, label, child=CHILD):
    """Instructions of one create in `tree`: the two runs side by side (the machine has two cores)."""
    runs = [(WARM, f"{label}warm"), (WARM + COUNTED, f"{label}counted")]
    with ThreadPoolExecutor(2) as pool:
        warm, counted = pool.map(lambda run: instructions(child, tree, run[0], uri, run[1]), runs)
    return (counted - warm) / COUNTED


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--against", metavar="REVISION", help="also count on this git revision")
    args = parser.parse_args()
    data = tempfile.mkdtemp(prefix="instructions-")
    database, uri = embedded.launch(os.path.join(data, "data"))
    worktree = None
    try:
        this = per_create(ROOT, uri, "this")
        print(f"POST /blueprints (the shared body): {this / 1e6:.3f} M instructions a create")
        eve = per_create(ROOT, uri, "eve", EVE_CHILD)
        print(f"Python-Eve: {eve / 1e6:.3f} M instructions a create; this / Eve: {this / eve:.3f}")
        if args.against:
            worktree = tempfile.mkdtemp(prefix="instructions-against-")
            subprocess.run(
                [GIT, "-C", str(ROOT), "worktree", "add", "--detach", worktree, args.against],
                check=True,
                capture_output=True,
            )
            other = per_create(Path(worktree), uri, "against")
            print(f"{args.against}: {other / 1e6:.3f} M instructions a create; this / it: {this / other:.3f}")
    finally:
        database.terminate()
        database.wait(timeout=600)
        if worktree:
            subprocess.run([GIT, "-C", str(ROOT), "worktree", "remove", "--force", worktree], check=False)
        shutil.rmtree(data, ignore_errors=True)


if __name__ == "__main__":
    main()
