"""YAML read as each format's Go tools read it (app/model/goyaml.py): plain scalars as Docker
Compose itself reads them (its `config` output keeps an extension's values with their types), and
keys as Kubernetes' YAML-to-JSON writes them (kubectl's own output, recorded below)."""

import datetime
import re

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from app.model import goyaml, yamlguard
from support import compose_oracle as oracle

# Text people write plain where a number, a boolean, a null or a time might be read
TOKEN = st.sampled_from(
    [
        "0",
        "1",
        "08",
        "017",
        "0o17",
        "0x1F",
        "0b11",
        "-0b11",
        "1_000",
        "1__0",
        "_1",
        "+5",
        "-3",
        ".5",
        "5.",
        "1e3",
        "1E-2",
        "-.5e1",
        "1:20",
        "22:22",
        "yes",
        "No",
        "on",
        "OFF",
        "y",
        "true",
        "True",
        "TRUE",
        "tRUE",
        "false",
        "null",
        "Null",
        "NULL",
        "~",
        "2020-01-01",
        "2020-1-1",
        "2020-01-01T10:00:00Z",
        "2020-01-01 10:00:00",
        "2020-1-2T3:04:05+02:30",
        "2020-13-01",
        "2020-02-30",
        "1.2.3",
        "18446744073709551615",
        "18446744073709551616",
        "9223372036854775808",
        "1.2.3.4",
        "v1",
        "1e",
        "--1",
        "+-1",
        "1_0.5",
        "0x",
        "12:30:45",
        "-0o7",
        "0O17",
    ]
)
SCALAR = st.one_of(TOKEN, st.from_regex(r"[-+]?[0-9_]{1,4}(\.[0-9_]{0,3})?([eE][-+]?[0-9]{1,2})?", fullmatch=True))


def as_compose_prints(value):
    """A value as `docker compose config --format json` prints it."""
    if isinstance(value, datetime.datetime):
        return value.isoformat().replace("+00:00", "Z")
    if isinstance(value, datetime.date):
        return f"{value.isoformat()}T00:00:00Z"
    return value


@pytest.mark.slow
@settings(max_examples=15, deadline=None)
@given(st.lists(SCALAR, min_size=1, max_size=60))
def test_plain_scalars_are_read_as_docker_compose_reads_them(scalars):
    text = "x-v: [" + ", ".join(scalars) + "]\nservices: {web: {image: x}}\n"
    accepted, project = oracle.config(text)
    assert accepted, project
    ours = [as_compose_prints(value) for value in yaml.load(text, Loader=goyaml.ComposeLoader)["x-v"]]  # noqa: S506
    theirs = project["x-v"]
    for scalar, mine, compose_reads in zip(scalars, ours, theirs, strict=True):
        assert type(mine) is type(compose_reads) or {type(mine), type(compose_reads)} <= {int, float}, scalar
        # Go prints a float without an exponent (2^64 as 18446744073709552000), which JSON reads back as an int
        numbers = {type(mine), type(compose_reads)} <= {int, float} and float in {type(mine), type(compose_reads)}
        assert mine == compose_reads or (numbers and float(mine) == float(compose_reads)), (scalar, mine, compose_reads)


# What `kubectl label --local -o yaml` wrote for these keys (kubectl 1.32, sigs.k8s.io/yaml)
KUBECTL_KEYS = {
    "1": "1",
    "true": "true",
    "yes": "true",
    "0.5": "0.5",
    "1e3": "1000",
    "2020-01-01": "2020-01-01",
    "0x10": "16",
    "on": "true",
    "1.5e7": "1.5e+07",
}


@pytest.mark.parametrize("written, read", KUBECTL_KEYS.items())
def test_keys_are_the_strings_kubernetes_makes_them(written, read):
    document = yaml.load(f"{{{written}: x}}", Loader=goyaml.KubernetesLoader)  # noqa: S506
    assert goyaml.string_keys(document) == {read: "x"}


def test_a_null_key_cannot_be_made_a_string():
    with pytest.raises(ValueError, match="unsupported map key"):
        goyaml.string_keys(yaml.load("{null: x}", Loader=goyaml.KubernetesLoader))  # noqa: S506


def test_a_date_is_text_to_kubernetes_and_a_timestamp_to_compose():
    assert yaml.load("a: 2020-01-01", Loader=goyaml.KubernetesLoader) == {"a": "2020-01-01"}  # noqa: S506
    assert yaml.load("a: 2020-01-01", Loader=goyaml.ComposeLoader) == {"a": datetime.date(2020, 1, 1)}  # noqa: S506


# A key written twice, and what Docker Compose says of it (go-yaml v3: keys compare as written)
REPEATED = {
    "services:\n  web:\n    image: a\n    image: b\n": 'line 4: mapping key "image" already defined at line 3',
    "x-a: &a {image: a}\nx-b: &b {init: true}\nservices:\n  web:\n    <<: *a\n    <<: *b\n": (
        'line 6: mapping key "<<" already defined at line 5'
    ),
    "services:\n  web:\n    image: a\n    environment:\n      1: a\n      '1': b\n": (
        'line 6: mapping key "1" already defined at line 5'
    ),
    "x-a: &a\n  image: a\n  environment: {A: 1, A: 2}\nservices:\n  web:\n    <<: *a\n": (
        'line 3: mapping key "A" already defined at line 3'
    ),
}


@pytest.mark.slow
@pytest.mark.parametrize("text, said", REPEATED.items())
def test_a_key_written_twice_is_refused_as_docker_compose_and_kubectl_apply_refuse_it(text, said):
    """Compose refuses it; so does `kubectl apply` by default (the API server's strict decoding)."""
    accepted, message = oracle.config(text)
    assert not accepted and said in message
    for loader in (goyaml.ComposeLoader, goyaml.KubernetesLoader):
        with pytest.raises(yamlguard.YamlError, match=re.escape(f"Not valid YAML: {said}.")):
            yamlguard.load(text, loader)


@pytest.mark.slow
def test_a_key_a_merge_brings_is_written_again_to_change_it():
    text = "x-a: &a {image: a, init: true}\nservices:\n  web:\n    <<: *a\n    image: b\n"
    accepted, project = oracle.config(text)
    assert accepted and project["services"]["web"]["image"] == "b"
    assert yamlguard.load(text, goyaml.ComposeLoader)[0]["services"]["web"] == {"image": "b", "init": True}
