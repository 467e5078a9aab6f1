"""The benchmarks: their bodies are the shared ones, `make profile` finds what it names, the counted creates run."""

from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parent.parent / "bench" / "bodies"
SHARED = Path(__file__).resolve().parent.parent.parent / "shared" / "bench"


@pytest.mark.parametrize("name", ["blueprint.json", "profile.json"])
def test_the_bench_bodies_are_the_shared_ones(name):
    if not SHARED.is_dir():
        pytest.skip("../shared/bench/ is not beside this clone")
    assert (BENCH / name).read_bytes() == (SHARED / name).read_bytes()


@pytest.mark.slow
def test_the_profile_finds_every_part_in_a_create():
    """`make profile` finds each part by its file and function: profiled, a create of the shared body
    spends time in every one (a move or a rename that the profile does not follow fails here)."""
    import pstats

    from bench.profile_post import BODY, HEADERS, PARTS, profiled, service_client, shares

    with service_client() as client:
        first = client.post("/blueprints", data=BODY, headers=HEADERS)
        assert first.status_code == 201, first.get_data(as_text=True)[:2000]
        stats = pstats.Stats(profiled(client, 5)).stats
    assert {part: seconds > 0 for part, seconds in shares(stats).items()} == dict.fromkeys(PARTS, True)


def test_the_counted_creates_run(mongo_server):
    """`make instructions` counts what its child makes under callgrind: without callgrind, the
    child makes its creates of the shared body (each asserted a 201) on this tree."""
    import subprocess
    import sys

    from bench.instructions import CHILD

    root = Path(__file__).resolve().parent.parent
    done = subprocess.run(
        [sys.executable, "-c", CHILD, str(root), "3", mongo_server.uri, "instructions"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr[-2000:]


def test_the_largest_definition_is_one_the_service_and_compose_accept():
    """`make bench` creates 50 blueprints of the largest definition the contract allows: the
    service must store them (it refused copies that named the originals' services) and Docker
    Compose accept them, at just under the limit."""
    import json

    from app import definitions
    from app.model import yamlguard
    from bench.web import largest
    from support import compose_oracle

    body = json.loads((BENCH / "blueprint.json").read_text())
    text = largest(body)["yml"]
    assert yamlguard.MAX_BYTES - 4096 < len(text.encode()) <= yamlguard.MAX_BYTES
    assert definitions.requirements("compose", yamlguard.parse(text))["containers"] > 1000
    assert compose_oracle.config(text)[0]


def test_the_conversions_render_each_case_for_a_cluster():
    """`make bench`'s conversions render the corpus's largest file a cluster takes and the shared
    body as Compose and for a cluster: both render both ways on this tree (a refusal would stop
    the whole bench)."""
    import json

    from app.definitions import render
    from bench import conversions

    body = json.loads((BENCH / "blueprint.json").read_text())
    name, text = conversions.largest()
    for yml in (text, body["yml"]):
        version = {"yml": yml, "blueprintType": "compose"}
        for cluster in (None, conversions.CLUSTER):
            assert render.render(version, {}, conversions.LIMITS, cluster=cluster)["yml"], name
