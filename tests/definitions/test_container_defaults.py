"""A profile's container defaults written into renders, with the tools as judges: Docker Compose
(`docker compose config`) must accept every render made with such a profile and report the amounts
the fit counted, and the render's requirements equal its fit's `required`. The catalogs people
import (Portainer's v3 file and the community catalog, about 350 Compose blueprints), the corpus's
Compose files and Kubernetes manifests (decoded by kubectl where the machine has it)."""

import shutil
import subprocess
from concurrent.futures import ThreadPoolExecutor

import pytest

from app import definitions
from app.definitions import render
from support import compose_oracle as oracle
from support import corpus
from support.http import create
from support.imports import imported
from support.on_kubernetes import LIMITS, TEAM

pytestmark = pytest.mark.slow
Mi, Gi = 1024**2, 1024**3


def judged(text, values=None, files=None):
    """What Docker Compose counts in `text`: (True, requirements) or (False, its message)."""
    accepted, project = oracle.config(text, values, files)
    return accepted, oracle.requirements(project, oracle.storage_bytes) if accepted else project


def measured(blueprint_type, text):
    """The requirements of a rendered definition read again, which a render's must equal."""
    return definitions.measure(definitions.format_of(blueprint_type), text)


COUNTED = {"memoryBytes": "memory", "cpuMillis": "cpu", "containers": "containers"}


def counted(fit):
    """What a fit counted, keyed as requirements are."""
    return {key: fit["resources"][resource]["required"] for key, resource in COUNTED.items()}


@pytest.mark.parametrize("app", ["mongomock"], indirect=True)
def test_the_imported_catalogs_fit_a_profile_with_defaults_and_render_as_compose_counts_them(api):
    files = corpus.portainer_files()
    results = []
    for catalog in ("portainer-templates-v3.json", "lissy93-templates.json"):
        report = imported(api, "portainer", corpus.portainer_catalog(catalog), source=catalog, files=files)
        results += [result for result in report["results"] if result["outcome"] == "created"]
    assert len(results) >= 340
    team = create(api, "profiles", **TEAM).json

    def rendered(result):
        blueprint = api.get(f"/blueprints/{result['id']}", user="alice").json
        declared = blueprint["parameters"] or {"properties": {}}
        values = {name: declared["properties"][name].get("examples", ["x"])[0] for name in declared.get("required", [])}
        fit = api.get(f"/blueprints/{result['id']}/fit?profile={team['id']}", user="alice").json
        render_ = api.post(
            f"/blueprints/{result['id']}/render", json={"values": values, "profile": team["id"]}, user="alice"
        ).json
        return result["title"], fit, render_

    renders = [rendered(result) for result in results]
    for title, fit, answer in renders:
        verdicts = {fit["resources"][r]["verdict"] for r in ("memory", "cpu")}
        assert "unbounded" not in verdicts, (title, fit)
        assert answer["fit"] == fit or "unknown" in verdicts, title  # a render's values may settle an unknown
        assert {k: answer["requirements"][k] for k in counted(answer["fit"])} == counted(answer["fit"]), title
        assert answer["requirements"]["unbounded"] == [], title
        again = measured("compose", answer["yml"])
        assert answer["requirements"] == {key: again[key] for key in answer["requirements"]}, title
    with ThreadPoolExecutor(4) as pool:
        verdicts = list(pool.map(lambda one: judged(one[2]["yml"], files={"stack.env": ""}), renders))
    for (title, _, answer), (accepted, theirs) in zip(renders, verdicts, strict=True):
        assert accepted, (title, theirs)
        assert {key: theirs[key] for key in counted(answer["fit"])} == counted(answer["fit"]), title
        assert theirs["unbounded"] == [], title
    fitting = sum(1 for _, fit, _ in renders if fit["fits"])
    print(f"{fitting} of {len(renders)} imported Compose blueprints fit {TEAM}")  # the closing note's figure
    assert fitting > len(renders) // 2


@pytest.mark.parametrize("name", corpus.names("compose"))
def test_every_corpus_compose_file_rendered_with_defaults_is_what_compose_counts(name):
    text = corpus.text(f"compose/{name}")
    answer = render.render({"yml": text, "blueprintType": "compose"}, {}, LIMITS)
    assert answer["requirements"] == measured("compose", answer["yml"])
    accepted, theirs = judged(answer["yml"], oracle.values_for(text), oracle.env_files(text))
    assert accepted, theirs
    fit = counted(answer["fit"])
    assert {key: theirs[key] for key, amount in fit.items() if amount is not None} == {
        key: amount for key, amount in fit.items() if amount is not None
    }
    assert theirs["unbounded"] == []


@pytest.mark.parametrize("name", corpus.names("kubernetes"))
def test_every_corpus_manifest_rendered_with_defaults_declares_what_the_fit_counted(name):
    answer = render.render({"yml": corpus.text(f"kubernetes/{name}"), "blueprintType": "kubernetes"}, {}, LIMITS)
    assert {key: answer["requirements"][key] for key in counted(answer["fit"])} == counted(answer["fit"])
    assert answer["requirements"]["unbounded"] == []
    assert answer["requirements"] == measured("kubernetes", answer["yml"])
    if kubectl := shutil.which("kubectl"):  # Kubernetes' own types decode what was written
        done = subprocess.run(
            [kubectl, "label", "--local", "-f", "-", "checked=yes", "-o", "yaml"],
            input=answer["yml"].encode(),
            capture_output=True,
            timeout=60,
        )
        assert done.returncode == 0, done.stderr.decode()
