"""The Gateway API's published types as the judge of HTTPRoutes: `@kubernetes-models/gateway-api`
(generated from sigs.k8s.io/gateway-api/apis/v1, MIT), pinned in support/oracles/package.json and
its lock, installed from the npm registry by `make test`, run with the machine's Node.js."""

import json
import shutil
import subprocess
from pathlib import Path

FOLDER = Path(__file__).resolve().parent / "oracles"
TIMEOUT_S = 60


def problems(routes):
    """Each problem the Gateway API's v1 types find in the HTTPRoute objects `routes`."""
    node = shutil.which("node")
    if node is None or not (FOLDER / "node_modules" / "@kubernetes-models" / "gateway-api").is_dir():
        raise AssertionError(f"the Gateway API's types are not installed: `make test` runs npm ci in {FOLDER}")
    done = subprocess.run(
        [node, "httproute.mjs"],
        input=json.dumps(routes).encode(),
        capture_output=True,
        cwd=FOLDER,
        timeout=TIMEOUT_S,
        check=True,
    )
    return done.stdout.decode().splitlines()
