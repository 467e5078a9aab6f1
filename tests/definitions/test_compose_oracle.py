"""Docker Compose itself as the judge (support/compose_oracle.py): every Compose file of the corpus
and generated files go through both `docker compose config` and the service's own check and
measure, which must agree: accept or refuse, and containers, memory, CPU and storage against
Compose's normalized project. Rendered templates too: Compose reads the service's render of a
template as it reads the template with the same variables set.

Where the service differs from Compose on purpose, a test names it (EXCEPTIONS)."""

import json
import os
import re
from concurrent.futures import ThreadPoolExecutor

import pytest
import yaml
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from app import definitions
from app.definitions import compose, templates
from app.errors import Invalid
from support import compose_oracle as oracle
from support import corpus, on_kubernetes
from support.requirements import shown

pytestmark = pytest.mark.slow
# 2,000 generated files a run (`make oracle`: 20,000), judged 50 to one `docker compose config` while they agree
BATCH, BATCHES = 50, int(os.environ.get("ORACLE_BATCHES", "40"))
EXCEPTIONS = {
    # Compose accepts a file with no service; a blueprint must start something.
    "invalid-no-services": "the service refuses a file without services",
}


def ours(text):
    """(True, requirements without `unresolved`) or (False, problems), as the service judges."""
    try:
        found = definitions.measure(compose, text)
    except Invalid as exc:
        return False, exc.errors["yml"]
    return True, {key: value for key, value in shown(found).items() if key != "unresolved"}


def theirs(text, values=None, files=None):
    accepted, found = oracle.config(text, values, files)
    return accepted, oracle.requirements(found, oracle.storage_bytes) if accepted else found


def corpus_files():
    return sorted(path.stem for path in corpus.folder().glob("compose/*.yml"))


@pytest.mark.parametrize("name", corpus_files() if corpus.FOLDER.is_dir() else ["(the corpus folder is absent)"])
def test_every_corpus_file_is_judged_as_docker_compose_judges_it(name):
    text = corpus.text(f"compose/{name}")
    values = oracle.values_for(text)
    compose_says = theirs(text, values, oracle.env_files(text))
    service_says = ours(templates.render(text, values, compose.DIALECT) if values else text)
    if name in EXCEPTIONS:
        assert compose_says[0] and not service_says[0], EXCEPTIONS[name]
        return
    assert service_says[0] == compose_says[0], (service_says, compose_says)
    if compose_says[0]:
        assert service_says[1] == compose_says[1]


# Generated files: services combining the amounts Compose reads in several places

MEMORY = st.one_of(
    st.sampled_from([0, 1, 1024, 536870912, 1024.0, -1]),
    st.builds(
        lambda n, unit: n + unit,
        st.sampled_from(["1", "512", "1.5", "0.5", ".5", "2", "100", "0", "5.", "1e3"]),
        st.sampled_from(
            ["", "b", "k", "kb", "m", "mb", "g", "gb", "K", "M", "G", "MB", "GiB", "t", "kib", " m", "mi", "x"]
        ),
    ),
)
CPUS = st.sampled_from([0.5, 1, 2, "0.5", "1", "1.0", 0.25, "0.125", 0, "2.5", 0.1, "0.01", -1, "1e-3", "lots"])
COUNT = st.sampled_from([0, 1, 2, 3, "2", "3", 2.0, -1, "+2", "2.0"])
SIZE = st.sampled_from(["1", "512m", "1.5g", "10G", "100k", 1024, "1gb", "2GiB"])  # sizes Docker's driver reads
# Mounts: `data` is declared at the top of every generated file, `lost` never; `c:` is a drive
VOLUME = st.sampled_from(
    [
        "data:/data",
        "lost:/data",
        "./a:/data",
        "/abs:/data/",
        "data:/logs:ro",
        "c:/data",
        "anon",
        "/a:/b:ro:x",
        "a::/b",
        "",
        "~/x:/home",
        "./b:/data/",
        {"type": "volume", "source": "data", "target": "/d"},
        {"type": "volume", "source": "lost", "target": "/d"},
        {"type": "bind", "source": "."},
        {"type": "volume", "target": "/data/"},
        {"type": "tmpfs", "target": "/run"},
    ]
)
TMPFS = st.sampled_from(["/scratch", "/data", "/run:size=1m", "/logs"])
# Text where Compose wants a number or a boolean, as a variable gives it
PORT = st.sampled_from(
    [
        80,
        "80",
        "8080:80",
        {"target": 80},
        {"target": "80"},
        {"target": "web"},
        {"published": 80},
        "127.0.0.1:8080:80/udp",
        "[::1]::80",
        "8000-8001:80-81",
        "9000-9009:80",
        "example:80",
        "80/xyz",
        "8000-8010:80-82",
        "0",
        70000,
        "80:",
    ]
)
SWITCH = st.sampled_from([True, "true", "yes", "off", "maybe"])
# Dependencies on the file's own services (@k is its k-th service)
NEEDS = st.sampled_from([["@0"], ["@1"], ["@2"], {"@1": {"condition": "service_started", "required": "false"}}])


def _maybe(key, strategy):
    return st.one_of(st.just({}), strategy.map(lambda value: {key: value}))


def _rare(key, strategy):
    """The key one time in four: most files keep to the amounts, so that most are measured."""
    return st.one_of(st.just({}), st.just({}), st.just({}), strategy.map(lambda value: {key: value}))


def _merged(*parts):
    return st.tuples(*parts).map(lambda found: {k: v for part in found for k, v in part.items()})


LIMITS = _merged(_maybe("memory", MEMORY), _maybe("cpus", CPUS))
RESOURCES = _merged(_maybe("limits", LIMITS), _maybe("reservations", LIMITS))
DEPLOY = _merged(_maybe("replicas", COUNT), _maybe("resources", RESOURCES))
SERVICE = _merged(
    st.sampled_from([{"image": "nginx"}] * 9 + [{}]),
    _maybe("scale", COUNT),
    _maybe("mem_limit", MEMORY),
    _maybe("cpus", CPUS),
    _maybe("mem_reservation", MEMORY),
    _maybe("profiles", st.just(["debug"])),
    _maybe("storage_opt", st.builds(lambda size: {"size": size}, SIZE)),
    _maybe("deploy", DEPLOY),
    _rare("pids_limit", st.sampled_from([5, 10, "10", "ten"])),
    _rare("volumes", st.lists(VOLUME, max_size=3)),
    _rare("tmpfs", st.lists(TMPFS, max_size=2)),
    _rare("ports", st.lists(PORT, max_size=2)),
    _rare("privileged", SWITCH),
    _rare("depends_on", NEEDS),
    _rare("links", NEEDS.filter(lambda needs: isinstance(needs, list))),
    _rare("network_mode", st.sampled_from(["host", "service:@1"])),
)
# A file: its services, which of them take their limits from an `x-` anchor merged with `<<`, and
# which extends the first
FILE = st.tuples(
    st.lists(SERVICE, min_size=1, max_size=3), st.lists(st.booleans(), min_size=3, max_size=3), st.booleans()
)


def _flow(value):
    if isinstance(value, dict):
        return (
            "{"
            + ", ".join(f"{k}: {v}" if k == "<<" else f"{json.dumps(k)}: {_flow(v)}" for k, v in value.items())
            + "}"
        )
    return json.dumps(value)


def emit(files):
    """The YAML text of the generated files as one, each service named f<file>s<index> and each
    anchor x-f<file>s<index>; and the names of each file's services."""
    anchors, services, names = [], [], []
    for i, (declared, anchored, extends) in enumerate(files):
        names.append([])
        for j, service in enumerate(declared):
            name, service = f"f{i}s{j}", dict(service)
            limits = ((service.get("deploy") or {}).get("resources") or {}).get("limits")
            if anchored[j] and limits:
                anchors.append(f"x-{name}: &{name} {_flow(limits)}")
                service["deploy"] = {
                    **service["deploy"],
                    "resources": {**service["deploy"]["resources"], "limits": {"<<": f"*{name}"}},
                }
            if extends and j > 0:
                service["extends"] = f"f{i}s0"
            services.append(f"  {name}: " + re.sub(r"@([0-9])", rf"f{i}s\1", _flow(service)))
            names[-1].append(name)
    return "\n".join([*anchors, "volumes: {data: {}}", "services:", *services]) + "\n", names


def _theirs_alone(one):
    return theirs(emit([one])[0])


@settings(
    max_examples=BATCHES,
    deadline=None,
    phases=[Phase.explicit, Phase.generate],  # a batch does not shrink
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(st.lists(FILE, min_size=BATCH, max_size=BATCH))
def test_generated_files_are_judged_as_docker_compose_judges_them(files):
    """The files the service accepts are judged together (one project, each file's services
    named apart) and, if Compose refuses that, one by one; those it refuses, one by one."""
    verdicts = [ours(emit([one])[0]) for one in files]
    accepted = [one for one, verdict in zip(files, verdicts, strict=True) if verdict[0]]
    refused = [one for one, verdict in zip(files, verdicts, strict=True) if not verdict[0]]
    text, names = emit(accepted)
    together, project = oracle.config(text) if accepted else (True, {"services": {}})
    with ThreadPoolExecutor(2) as pool:
        for one, (compose_accepts, _) in zip(refused, pool.map(_theirs_alone, refused), strict=True):
            assert not compose_accepts, ("the service refuses what Compose accepts", one, ours(emit([one])[0]))
        if not together:
            for one, (compose_accepts, found) in zip(accepted, pool.map(_theirs_alone, accepted), strict=True):
                assert compose_accepts, ("the service accepts what Compose refuses", emit([one])[0], found)
    if together and accepted:  # and rendered for a cluster, each service as Compose starts it
        compose_render, cluster, refused = on_kubernetes.rendered(text)
        if not project["services"]:  # every service in a profile: Compose starts none
            assert "starts none" in refused["target"][0], (text, refused)
        else:
            assert refused is None, (text, refused)
            assert on_kubernetes.unfaithful(project, yaml.safe_load(text)["services"], cluster["yml"]) == [], text
            beyond = on_kubernetes.waits_beyond(cluster["yml"])  # a wait container over what its pod declares
            for key in on_kubernetes.COUNTED:
                assert cluster["requirements"][key] - beyond.get(key, 0) == compose_render["requirements"][key], text
    kept = [verdict for verdict in verdicts if verdict[0]]
    for one, service_names, (_, requirements) in zip(accepted, names, kept, strict=True):
        mine = {"services": {n: s for n, s in project["services"].items() if n in service_names}}
        assert requirements == _renamed(oracle.requirements(mine, oracle.storage_bytes), service_names), emit([one])[0]


def _renamed(found, names):
    """Requirements of a file judged among others, named as the file alone names its services."""
    alone = {name: f"f0s{name.split('s')[-1]}" for name in names}
    return {
        **found,
        "unbounded": sorted(f"{alone[n]}: {kind}" for n, kind in (u.split(": ") for u in found["unbounded"])),
    }


@pytest.mark.parametrize("size", ["2mi", "not a size", "20G of disk"])
def test_a_storage_size_that_is_no_size_is_accepted_as_compose_accepts_it_and_declares_none(size):
    """Compose passes `storage_opt` to the engine as written: a file is judged as Compose judges
    it, and such a size counts as undeclared storage."""
    text = f"services:\n  web: {{image: nginx, storage_opt: {{size: '{size}'}}}}\n"
    assert oracle.config(text)[0]
    accepted, requirements = ours(text)
    assert accepted and requirements["storageBytes"] == 0
    sized = ours("services:\n  web: {image: nginx, storage_opt: {size: 2g}}\n")
    assert sized == (True, {**requirements, "storageBytes": 2 * 1024**3})


@pytest.mark.parametrize("name", corpus_files() if corpus.FOLDER.is_dir() else ["(the corpus folder is absent)"])
@settings(max_examples=3, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_a_rendered_template_reads_as_compose_reads_the_template_with_the_same_values(name, data):
    """At the .env values, then at generated text (quotes, `$`, `#`, colons, newlines): Compose
    reads the service's rendered file as it reads the template with those variables set."""
    text = corpus.text(f"compose/{name}")
    values = oracle.values_for(text)
    if not values or name in EXCEPTIONS:
        return
    free = [key for key in values if key not in oracle.VALUES]  # in places any text may go
    characters = st.characters(codec="utf-8", exclude_categories=["Cs", "Cc"]) | st.sampled_from("$#:'\"\n")
    values |= data.draw(st.fixed_dictionaries({key: st.text(characters, max_size=12) for key in free}))
    files = oracle.env_files(text)
    direct = oracle.config(text, values, files)
    rendered = oracle.config(templates.render(text, values, compose.DIALECT), {}, files)
    assert rendered[0] == direct[0], (rendered, direct)
    if direct[0]:
        assert rendered[1] == direct[1]
