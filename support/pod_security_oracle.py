"""checkov's Kubernetes checks as a second reading of the Pod Security Standards: the corpus's
Compose files converted at each level and its Kubernetes manifests as written, each workload's
controls as the service reads them beside those checkov's checks stand for. checkov runs from a
virtualenv of its own (`make pod-security` makes it), since its pins are not the service's."""

import json
import os
import subprocess
import tempfile
from pathlib import Path

from app.definitions import kubernetes, pod_security
from app.definitions import render as rendering
from app.definitions.on_kubernetes.model import Cluster
from app.errors import Invalid
from app.model import quantities
from support import corpus, yamls

CHECKOV = os.environ.get("CHECKOV", str(Path(__file__).resolve().parent.parent / ".venv-checkov/bin/checkov"))
# checkov's check -> (the Standards' control, the lowest level that refuses what it flags)
CHECKS = {
    "CKV_K8S_16": ("Privileged Containers", "baseline"),
    "CKV_K8S_17": ("Host Namespaces", "baseline"),
    "CKV_K8S_18": ("Host Namespaces", "baseline"),
    "CKV_K8S_19": ("Host Namespaces", "baseline"),
    "CKV_K8S_26": ("Host Ports", "baseline"),
    "CKV_K8S_27": ("HostPath Volumes", "baseline"),  # the Docker socket only
    "CKV_K8S_25": ("Capabilities", "baseline"),  # any added capability
    "CKV_K8S_28": ("Capabilities", "restricted"),  # NET_RAW not dropped
    "CKV_K8S_37": ("Capabilities", "restricted"),  # capabilities not all dropped
    "CKV_K8S_20": ("Privilege Escalation", "restricted"),
    "CKV_K8S_23": ("Running as Non-root", "restricted"),
    "CKV_K8S_31": ("Seccomp", "restricted"),
}
LEVEL = {"baseline": ("baseline",), "restricted": ("baseline", "restricted")}


def available():
    return Path(CHECKOV).is_file()


def streams():
    """{name: Kubernetes stream}: each corpus Compose file converted at baseline and at
    restricted (its pods as that level writes them), each corpus manifest as written (the files
    the service refuses left out)."""
    found = {}
    valid = [path for path in sorted(corpus.FOLDER.glob("*/*.yml")) if not path.stem.startswith("invalid-")]
    for path in (one for one in valid if one.parent.name == "compose"):
        for level in ("baseline", "restricted"):
            limits = {**quantities.limits({}), "podSecurity": level}
            cluster = Cluster("i", "ns")
            try:
                answer = rendering.render(
                    {"yml": path.read_text(), "blueprintType": "compose"}, {}, limits, cluster=cluster
                )
            except Invalid:  # a file the service refuses, or one no cluster runs (a build only)
                continue
            found[f"{path.stem}.{level}"] = answer["yml"]
    for path in (one for one in valid if one.parent.name == "kubernetes"):
        found[f"{path.stem}.as-written"] = path.read_text()
    return found


def ours(text):
    """{(kind, name): {control at level}} of the stream's workloads, as the service reads them."""
    read = {}
    for manifest in yamls.documents(text):
        if not isinstance(manifest, dict) or not isinstance(manifest.get("metadata"), dict):
            continue
        api_version = str(manifest.get("apiVersion", ""))
        group = api_version.split("/")[0] if "/" in api_version else ""
        paths = kubernetes.WORKLOADS.get((manifest.get("kind"), group))
        if paths is None:
            continue
        spec = manifest
        for key in paths[1]:
            spec = (spec or {}).get(key) if isinstance(spec, dict) else None
        findings = pod_security.of_pod(spec or {}, ["spec"])
        read[(manifest["kind"], manifest["metadata"].get("name"))] = {
            (one["control"], one["level"]) for one in findings
        }
    return read


def theirs(folder):
    """{(file stem, kind, name): {(control, level)}} of what checkov's CHECKS flag."""
    run = subprocess.run(
        [CHECKOV, "-d", str(folder), "--framework", "kubernetes", "-o", "json", "--quiet", "--check", ",".join(CHECKS)],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    reports = json.loads(run.stdout)
    reports = reports if isinstance(reports, list) else [reports]
    flagged = {}
    for report in reports:
        for check in report.get("results", {}).get("failed_checks", []):
            kind, *_, name = check["resource"].split(".") if check["resource"].count(".") >= 2 else ("?", "?")
            stem = Path(check["file_path"]).stem
            flagged.setdefault((stem, kind, name), set()).add(CHECKS[check["check_id"]])
    return flagged


def compared():
    """[(file, kind, name, level, ours only, checkov's only)] of every workload whose controls differ
    at the level its stream was written for (a manifest as written: at restricted)."""
    texts = streams()
    with tempfile.TemporaryDirectory() as folder:
        for name, text in texts.items():
            (Path(folder) / f"{name}.yaml").write_text(text)
        flagged = theirs(folder)
    differing = []
    for name, text in texts.items():
        level = "baseline" if name.endswith(".baseline") else "restricted"
        for (kind, workload), read in ours(text).items():
            mine = {control for control, at in read if at in LEVEL[level]}
            other = {control for control, at in flagged.get((name, kind, workload), ()) if at in LEVEL[level]}
            if mine != other:
                differing.append((name, kind, workload, level, sorted(mine - other), sorted(other - mine)))
    return texts, differing
