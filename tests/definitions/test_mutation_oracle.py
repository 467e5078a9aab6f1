"""Real files changed at one node, the way people mistype them (support/mutations.py): every Compose
file of the corpus, mutated, is judged by the service (a dry-run create, and the import the web
editor's "Declare the variables" asks for) and by Docker Compose itself, which must agree; every
Kubernetes manifest and catalog (Portainer, OpenShift, an export, Kubernetes' quota objects) of
the corpus, mutated, gets a 4xx or a 2xx, never a 5xx, and so do a template's parameters and a
render's values changed likewise.
`make test` runs MUTANTS of each kind with a fixed seed; `make oracle` many thousands with a new
seed, printed so that a failure can be run again (MUTATION_SEED)."""

import os
import random
import shutil
import subprocess
from concurrent.futures import ThreadPoolExecutor

import pytest
import yaml

from app.definitions import compose, kubernetes, templates
from support import compose_oracle as oracle
from support import corpus, mutations, on_kubernetes
from support.apps import make_app
from support.http import FlaskClient
from support.imports import QUOTA

pytestmark = pytest.mark.slow
MUTANTS = int(os.environ.get("MUTANTS", "300"))
SEED = int(os.environ.get("MUTATION_SEED", "40"))
WINDOW = 8  # templates of a Portainer catalog a mutant is made from
# Where the service and Compose differ on purpose
# (docs/decisions/05-compose-as-docker-compose-judges-it.md): the service's problem, or Compose's
# message, that marks each
KEPT = {
    "services: the file defines no service": "a blueprint must start something; Compose accepts an empty project",
    "larger than a 64-bit integer": "amounts are counted in 64-bit integers; Compose keeps 2^64 as a float",
}
V3 = "portainer-templates-v3.json"
BEYOND_THE_FILE = "env file "  # Compose reads the env files beside the file; a blueprint is one file


@pytest.fixture(scope="module")
def api():
    return FlaskClient(make_app("mongomock"))


def _rng(kind):
    return random.Random(f"{SEED}:{kind}")


def compose_mutants(count):
    """(corpus file, what changed, the mutant's text) for `count` mutants of the corpus's valid
    Compose files."""
    rng, names = _rng("compose"), valid_compose_names()
    found = []
    for _ in range(count):
        name = rng.choice(names)
        document, what = mutations.mutate(yaml.load(rendered(name), Loader=compose.DIALECT.loader), rng)  # noqa: S506
        found.append((name, what, mutations.text(document)))
    return found


def rendered(name):
    """The corpus's Compose file `name`, rendered at the values a user's .env gives."""
    text = corpus.text(f"compose/{name}")
    values = oracle.values_for(text)
    return templates.render(text, values, compose.DIALECT) if values else text


def corpus_names(folder):
    return sorted(path.stem for path in corpus.folder().glob(f"{folder}/*.yml"))


def valid_compose_names():
    """The corpus's Compose files but those it keeps as invalid (`invalid-*`)."""
    return [name for name in corpus_names("compose") if not name.startswith("invalid")]


def kept(problems, message):
    """Why the service and Compose may differ on this file, or None."""
    if BEYOND_THE_FILE in message:
        return "an env file beside the file"
    return next((why for marker, why in KEPT.items() if any(marker in problem for problem in problems)), None)


def test_mutated_compose_files_are_judged_as_docker_compose_judges_them(api):
    judged_as_docker_compose(api, compose_mutants(MUTANTS))


def test_a_line_written_twice_is_judged_as_docker_compose_judges_it(api):
    """The slip of copy and paste, in the text as written: a key written twice is refused as
    Compose refuses it (go-yaml v3: the key "already defined"), a list item twice as Compose
    judges that."""
    rng, names = _rng("doubled"), valid_compose_names()
    mutants = []
    for name in rng.choices(names, k=MUTANTS // 3):
        text, what = mutations.line_doubled(rendered(name), rng)
        mutants.append((name, what, text))
    refusals = judged_as_docker_compose(api, mutants)
    assert sum("already defined" in found for found in refusals) >= len(mutants) // 3, refusals[:5]


def judged_as_docker_compose(api, mutants):
    """Each (name, what, text) of `mutants` judged by the service (a dry-run create, and the import
    the web editor's "Declare the variables" asks for) and by Docker Compose, which must agree;
    what Compose said of those it refused."""
    with ThreadPoolExecutor(2) as pool:
        verdicts = list(pool.map(lambda mutant: oracle.config(mutant[2], {}, oracle.env_files(mutant[2])), mutants))
    disagreements, agreed, streams = [], 0, []
    for (name, what, text), (compose_accepts, found) in zip(mutants, verdicts, strict=True):
        body = {"name": "m", "blueprintType": "compose", "yml": text}
        response = api.post("/blueprints?dryRun=true", json=body, user="alice")
        assert response.status in (200, 422), (name, what, text, response.status, response.body[:300])
        if response.status == 200:  # rendered for a cluster: converted, or a 422 naming why
            _, cluster, refused = on_kubernetes.rendered(text)
            assert refused is None or "target" in refused, (name, what, text, refused)  # a 422 the contract gives
            streams += [cluster["yml"]] if cluster else []
        problems = [] if response.status == 200 else response.json["errors"]["yml"]
        declared = api.post(
            "/imports?dryRun=true", json={"format": "compose", "source": "m", "document": text}, user="alice"
        )
        assert declared.status < 500, (name, what, text, declared.body[:300])
        if (response.status == 200) == compose_accepts or kept(problems, "" if compose_accepts else found):
            agreed += 1
            continue
        disagreements.append((name, what, problems or "accepted", "accepted" if compose_accepts else found[:200]))
    print(f"seed {SEED}: {len(mutants)} Compose mutants, {agreed} verdicts as Docker Compose's")
    assert not disagreements, disagreements[:5]
    assert on_kubernetes.taken_by_kubernetes("---\n".join(streams))
    return [found for accepted, found in verdicts if not accepted]


def kubernetes_mutants(count):
    """(corpus file, what changed, the mutated stream) for `count` mutants of the corpus's manifests."""
    rng, names, found = _rng("kubernetes"), corpus_names("kubernetes"), []
    for _ in range(count):
        name = rng.choice(names)
        try:
            documents = list(yaml.load_all(corpus.text(f"kubernetes/{name}"), Loader=kubernetes.DIALECT.loader))  # noqa: S506
        except yaml.YAMLError:
            continue  # an invalid file of the corpus, refused as it is
        index = rng.randrange(len(documents))
        documents[index], what = mutations.mutate(documents[index], rng, fields={})
        found.append((name, what, mutations.text_stream(documents)))
    return found


def test_mutated_kubernetes_manifests_are_never_a_5xx(api):
    for name, what, text in kubernetes_mutants(MUTANTS):
        response = api.post(
            "/blueprints?dryRun=true", json={"name": "m", "blueprintType": "kubernetes", "yml": text}, user="alice"
        )
        assert response.status in (200, 422), (name, what, text, response.body[:300])


KUBECTL = shutil.which("kubectl")


@pytest.mark.skipif(not KUBECTL, reason="kubectl is not on this machine")
def test_what_kubectl_cannot_decode_is_refused(api, tmp_path):
    """kubectl decodes each object with Kubernetes' own Go types, offline (`label --local`): what it
    refuses (a wrong type, a bad quantity), the service refuses too. The reverse is not asked: it
    drops unknown fields silently, which the strict schemas refuse, as `kubectl apply` does."""
    for index, (name, what, text) in enumerate(kubernetes_mutants(max(MUTANTS // 3, 10))):
        (tmp_path / f"{index}.yml").write_text(text)
        decoded = subprocess.run(
            [KUBECTL, "label", "--local", "-f", str(tmp_path / f"{index}.yml"), "oracle=1", "-o", "yaml"],
            capture_output=True,
            text=True,
            timeout=60,
        )
        if decoded.returncode:
            body = {"name": "m", "blueprintType": "kubernetes", "yml": text}
            response = api.post("/blueprints?dryRun=true", json=body, user="alice")
            assert response.status == 422, (name, what, text, decoded.stderr[:300])


def catalogs():
    """(format, name, document, files) of each catalog of the corpus."""
    found = [
        ("portainer", name, corpus.portainer_catalog(name), corpus.portainer_files())
        for name in (V3, "portainer-templates-v2.json", "lissy93-templates.json")
    ]
    found += [("openshift", name, template, {}) for name, template in corpus.openshift_templates().items()]
    text = corpus.text("compose/nginx-flask-mysql")
    exported = {
        "name": "web",
        "blueprintType": "compose",
        "yml": text,
        "tags": ["web"],
        "entitlementType": "PUBLIC",
        "parameters": {"type": "object", "properties": {"TAG": {"type": "string"}}},
    }
    found.append(("native", "an export", {"format": "native", "version": 1, "blueprints": [exported]}, {}))
    found.append(("kubernetes-quota", "a quota and a limit range", list(yaml.safe_load_all(QUOTA)), {}))
    return found


def test_mutated_catalogs_are_never_a_5xx_as_json_nor_as_yaml(api):
    """A catalog changed at one node, sent as JSON (keys become strings, a date its text) and, for
    OpenShift, as the YAML text its users write (keys and dates as they are). A Portainer catalog
    is sent as WINDOW templates of it in a row: the other hundreds (524 in one) would only be read
    again unchanged."""
    rng, every = _rng("catalogs"), catalogs()
    for _ in range(MUTANTS):
        fmt, name, document, files = rng.choice(every)
        if fmt == "portainer":
            start = rng.randrange(len(document["templates"]) - WINDOW)
            document = {**document, "templates": document["templates"][start : start + WINDOW]}
        mutant, what = mutations.mutate(document, rng, fields={})
        sent = [mutations.as_json(mutant)]
        if fmt == "openshift":
            sent.append(mutations.text(mutant))
        elif fmt == "kubernetes-quota" and isinstance(mutant, list):
            sent.append(mutations.text_stream(mutant))
        for one in sent:
            body = {"format": fmt, "source": "m", "document": one, "files": files}
            response = api.post("/imports?dryRun=true", json=body, user="alice")
            assert response.status < 500, (name, what, response.body[:300])


ODD_VALUES = ('"${jwt:a:b}"', '"${"', '"${password:99999}"', "123", "[]", "{}", '"$$cap_"', "true", '"${a}${a}"')


def _mutated_toml(text, rng):
    """`text` (a template.toml) with one line gone, doubled, or its value made an odd one."""
    lines = text.splitlines()
    if not lines:
        return text
    at = rng.randrange(len(lines))
    choice = rng.randrange(3)
    if choice == 0:
        del lines[at]
    elif choice == 1:
        lines.insert(at, lines[at])
    elif "=" in lines[at]:
        lines[at] = lines[at].split("=", 1)[0] + "= " + rng.choice(ODD_VALUES)
    return "\n".join(lines)


def platform_mutants(count):
    """(format, template, what changed, document) for `count` templates of the platforms'
    catalogs, each changed at one node: its Compose file or one-click YAML, or its template.toml."""
    rng = _rng("platforms")
    sources = {
        "dokploy": corpus.dokploy_catalog(),
        **{name: corpus.platform_catalog(name) for name in ("coolify", "caprover")},
    }
    found = []
    for _ in range(count):
        fmt = rng.choice(sorted(sources))
        name = rng.choice(sorted(sources[fmt]))
        template = sources[fmt][name]
        if fmt == "dokploy" and rng.random() < 0.5:
            what, template = (
                "template.toml",
                {**template, "template.toml": _mutated_toml(template.get("template.toml", ""), rng)},
            )
        else:
            text = template["docker-compose.yml"] if fmt == "dokploy" else template
            try:
                document, what = mutations.mutate(yaml.load(text, Loader=compose.DIALECT.loader), rng)  # noqa: S506
            except yaml.YAMLError:
                continue
            mutant = mutations.text(document)
            template = {**template, "docker-compose.yml": mutant} if fmt == "dokploy" else mutant
        found.append((fmt, name, what, {name: template}))
    return found


def test_mutated_platform_templates_are_never_a_5xx(api):
    for fmt, name, what, document in platform_mutants(MUTANTS):
        response = api.post(
            "/imports?dryRun=true", json={"format": fmt, "source": "m", "document": document}, user="alice"
        )
        assert response.status < 500, (fmt, name, what, response.body[:300])


def test_mutated_parameters_and_values_are_never_a_5xx(api):
    """A template's declared parameters, and the values a render is given, changed at one node."""
    rng = _rng("parameters")
    yml = (
        "services:\n  web:\n    image: nginx:${TAG}\n    deploy:\n      replicas: ${REPLICAS}\n"
        "    environment: {PW: '${PW}'}\n"
    )
    declared = {
        "type": "object",
        "required": ["TAG"],
        "properties": {
            "REPLICAS": {"type": "integer", "default": 2, "minimum": 1, "maximum": 50},
            "TAG": {"type": "string", "default": "1.27", "enum": ["1.27", "1.28"]},
            "PW": {"type": "string", "writeOnly": True, "x-generate": "[a-z]{8}"},
        },
    }
    made = api.post(
        "/blueprints", json={"name": "t", "blueprintType": "compose", "yml": yml, "parameters": declared}, user="alice"
    ).json
    for _ in range(MUTANTS):
        mutant, what = mutations.mutate(declared, rng, fields={})
        body = {"name": "m", "blueprintType": "compose", "yml": yml, "parameters": mutations.as_json(mutant)}
        response = api.post("/blueprints?dryRun=true", json=body, user="alice")
        assert response.status in (200, 422), (what, response.body[:300])
        values, what = mutations.mutate({"REPLICAS": 3, "TAG": "1.28", "PW": "x"}, rng, fields={})
        rendered = api.post(
            f"/blueprints/{made['id']}/render", json={"values": mutations.as_json(values)}, user="alice"
        )
        assert rendered.status in (200, 422), (what, rendered.body[:300])
