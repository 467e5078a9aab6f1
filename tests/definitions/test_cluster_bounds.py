"""Every render for a cluster bounded before it is made: ports counted without expanding their
ranges, services counted with `extends` followed, replicas held to Kubernetes' int32, the written
stream to a Compose render's 1 MiB; each a 422 naming the bound, in well under a second."""

import time

import pytest

from app.definitions import render as rendering
from app.definitions import templates
from app.definitions.on_kubernetes.model import Cluster
from app.errors import Invalid
from support.on_kubernetes import bounded_file

CLUSTER = Cluster("i")
RANGES = "x-p: &p ['8000-8999:8000-8999', '9000-9999:9000-9999/udp']\nservices:\n"


def converted(yml):
    return rendering.render({"yml": yml, "blueprintType": "compose"}, {}, cluster=CLUSTER)


@pytest.mark.parametrize(
    ("yml", "bound"),
    [
        (RANGES + "".join(f"  s{i}:\n    image: x\n    ports: *p\n" for i in range(40)), "writes at most 2000"),
        (
            "services:\n  s0:\n    image: x\n" + "".join(f"  s{i}:\n    extends: s{i - 1}\n" for i in range(1, 2000)),
            "at most 500",
        ),
        ("services:\n  s:\n    image: x\n    deploy: {replicas: 2147483648}\n", "at most 2147483647"),
    ],
)
def test_a_render_past_a_bound_is_a_422_naming_it_at_once(yml, bound):
    started = time.process_time()
    with pytest.raises(Invalid) as refused:
        converted(yml)
    assert bound in refused.value.errors["target"][0]
    assert time.process_time() - started < 2  # counted, not made (it took 9 s, writing 18.5 MB)


def test_what_the_bounds_allow_is_written_within_a_compose_renders_size():
    with pytest.raises(Invalid) as refused:
        converted(bounded_file(500, 10, 10))
    assert refused.value.errors["target"] == [
        f"Written for a cluster, it is larger than {templates.MAX_RENDERED // 1024} KiB."
    ]
    assert len(converted(bounded_file(500, 4))["yml"].encode()) <= templates.MAX_RENDERED
