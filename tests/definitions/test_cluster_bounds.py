"""Every render for a cluster bounded before it is made: ports counted without expanding their
ranges, services counted with `extends` followed, replicas held to Kubernetes' int32, the written
stream to a Compose render's 1 MiB; each a 422 naming the bound, in well under a second."""

import time

import pytest

from app.definitions import render as rendering
from app.definitions import templates
from app.errors import Invalid

CLUSTER = {"instance": "i", "namespace": None, "volumeSize": "1Gi", "volumeSizes": {}}
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


def largest(services, labels):
    """`services` services with the most ports each may write (2,000 in all), an aliased
    environment and `labels` labels each: 83 KB of Compose at 500 and 10."""
    anchor = "x-env: &env\n" + "".join(f"  V{k}: '{'v' * 40}'\n" for k in range(10))
    return (
        anchor
        + "services:\n"
        + "".join(
            f"  s{i}:\n    image: r.example/app:1\n    expose: ['{4 * i}-{4 * i + 3}']\n    environment: *env\n"
            f"    labels: {{{', '.join(f'l{k}: x' for k in range(labels))}}}\n"
            for i in range(services)
        )
    )


def test_what_the_bounds_allow_is_written_within_a_compose_renders_size():
    with pytest.raises(Invalid) as refused:
        converted(largest(500, 10))
    assert refused.value.errors["target"] == [
        f"Written for a cluster, it is larger than {templates.MAX_RENDERED // 1024} KiB."
    ]
    assert len(converted(largest(250, 10))["yml"].encode()) <= templates.MAX_RENDERED
