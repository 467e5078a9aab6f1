"""The cap grammar: units, rounding, bounds that fit int64, and the patterns the document publishes."""

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from app.model import quantities as caps

GiB, MiB = 1024**3, 1024**2
INT64 = 2**63 - 1


@pytest.mark.parametrize(
    "text, expected",
    [
        ("1", MiB),
        ("512", 512 * MiB),
        ("1.5Gi", 3 * GiB // 2),
        ("1.5 GiB", 3 * GiB // 2),
        ("2g", 2 * 10**9),
        ("2GB", 2 * 10**9),
        ("1k", 1000),
        ("1Ki", 1024),
        ("1kib", 1024),
        ("100B", 100),
        ("1T", 10**12),
        ("1Ti", 1024**4),
        ("0", 0),
        ("0.5", MiB // 2),
        ("1.0000001K", 1000),
        (".5Ki", 512),
        ("3m", 3 * 10**6),
        ("3Mi", 3 * MiB),
        ("1.", MiB),
    ],
)
def test_memory_quantities_are_read_as_bytes(text, expected):
    assert caps.MEMORY.parse(text) == expected


def test_storage_bare_number_means_gib():
    assert caps.STORAGE.parse("10") == 10 * GiB
    assert caps.STORAGE.parse("10M") == 10**7


@pytest.mark.parametrize(
    "text", ["", "lots", "-1", "1 2", "1Gb2", "1X", "1  Gi", "1e3", "Gi", "1.2.3", "+5", "1Gi\n", "1 Gi "]
)
def test_malformed_memory_quantities_are_refused(text):
    with pytest.raises(caps.QuantityError):
        caps.MEMORY.parse(text)


@pytest.mark.parametrize(
    "text, expected",
    [
        ("2", 2000),
        ("0.5", 500),
        ("500m", 500),
        ("0.001", 1),
        ("1.5", 1500),
        ("0", 0),
        ("250 m", 250),
        ("0.500", 500),
        (".5", 500),
    ],
)
def test_cpu_quantities_are_read_as_millicores(text, expected):
    assert caps.CPU.parse(text) == expected


@pytest.mark.parametrize("text", ["0.0005", "0.5m", "1M", "2 cpus", "-1", "1Gi", "0.5000"])
def test_malformed_cpu_quantities_are_refused(text):
    with pytest.raises(caps.QuantityError):
        caps.CPU.parse(text)


def test_a_container_count_is_a_plain_whole_number():
    assert caps.CONTAINERS.parse("3") == 3
    for text in ("3.0", "-1", "three", "３", "1e2"):
        with pytest.raises(caps.QuantityError):
            caps.CONTAINERS.parse(text)


@pytest.mark.parametrize(
    "value, text",
    [
        (2, "2"),
        (2.0, "2"),
        (0.5, "0.5"),
        (1e20, "100000000000000000000"),
        (1.5e-7, "0.00000015"),
        ("  1Gi ", "1Gi"),
        (0, "0"),
    ],
)
def test_a_json_number_becomes_the_quantity_it_means(value, text):
    assert caps.from_json(value) == text


@pytest.mark.parametrize("value", [True, False, -1, -0.5, float("inf"), float("nan"), {}, [], "x" * 65])
def test_from_json_refused(value):
    with pytest.raises(caps.QuantityError):
        caps.from_json(value)


@pytest.mark.parametrize(
    "grammar, largest, too_large",
    [
        (caps.MEMORY, "999999TiB", "1000000TiB"),
        (caps.MEMORY, "999999999999999999B", "9999999999999999999B"),
        (caps.MEMORY, "999999999999", "1000000000000"),
        (caps.STORAGE, "999999999", "1000000000"),
        (caps.CPU, "999999999999999.999", "1000000000000000"),
        (caps.CPU, "999999999999999999m", "9999999999999999999m"),
        (caps.CONTAINERS, "9" * 18, "9" * 19),
    ],
)
def test_every_accepted_value_fits_int64(grammar, largest, too_large):
    assert grammar.parse(largest) <= INT64
    with pytest.raises(caps.QuantityError):
        grammar.parse(too_large)


def test_json_number_bounds_agree_with_the_patterns():
    for grammar in (caps.MEMORY, caps.STORAGE, caps.CPU, caps.CONTAINERS):
        below = caps.from_json(grammar.json_maximum - 1)
        assert grammar.parse(below) <= INT64
        with pytest.raises(caps.QuantityError):
            grammar.parse(caps.from_json(grammar.json_maximum))


def test_patterns_are_ecma_compatible():
    """No flags, no Python-only syntax: the document publishes them as they are."""
    for grammar in (caps.MEMORY, caps.STORAGE, caps.CPU, caps.CONTAINERS):
        assert grammar.pattern.startswith("^") and grammar.pattern.endswith("$")
        assert not re.search(r"\(\?[aiLmsux]|\\[AZz]|\(\?P", grammar.pattern)


def test_limits_of_a_document():
    doc = {"memoryCap": "1Gi", "cpuCap": "500m", "containerCap": None, "containerDefaults": {"memory": "256Mi"}}
    assert caps.limits(doc) == {
        "memoryBytes": GiB,
        "cpuMillis": 500,
        "containers": None,
        "storageBytes": None,
        "containerDefaults": {"memoryBytes": GiB // 4, "cpuMillis": None},
        "containerMax": {"memoryBytes": None, "cpuMillis": None},
    }


# Quantities in blueprint definitions

KiB, MiB_, GiB_ = 1024, 1024**2, 1024**3


@pytest.mark.parametrize(
    "value, expected",
    [
        (1024, 1024),
        ("1b", 1),
        ("1k", KiB),
        ("1kb", KiB),
        ("1KB", KiB),
        ("512M", 512 * MiB_),
        ("512mb", 512 * MiB_),
        ("1.5g", 3 * GiB_ // 2),
        ("1 g", GiB_),
        ("2GiB", 2 * GiB_),
        ("1t", 1024**4),
        ("0.1k", 102),
        ("1.0000001k", 1024),
        ("1e3", 1000),
        ("1e3k", 1024000),
        ("+1", 1),
        ("5.k", 5 * KiB),
        ("1.1g", 1181116006),
        (1.5, None),
        (1024.0, None),
        ("0", None),
        (0, None),
        (-1, None),
        ("000512b", 512),
        ("8589934591g", 2**63 - 2**30),
    ],
)
def test_compose_bytes_are_read_as_docker_compose_reads_them(value, expected):
    """Powers of 1024, truncated to a byte as go-units does; None where Compose sets no limit
    (zero, a negative number, a YAML float: Compose drops it). Each checked against Docker
    Compose itself in tests/definitions/test_compose_oracle.py."""
    assert caps.compose_bytes(value) == expected


@pytest.mark.parametrize(
    "value",
    [
        "lots",
        "-1",
        "1x",
        "1mi",
        "1ki",
        " 1m",
        "1m ",
        "1  m",
        "",
        True,
        None,
        [],
        "9999999999999999g",
        "inf",
        "0x10",
        "512ib",
        "1bb",
        "8589934592g",
    ],
)
def test_compose_bytes_refused(value):
    with pytest.raises(caps.QuantityError):
        caps.compose_bytes(value)


def _read(read, value):
    try:
        return read(value, "it")
    except caps.QuantityError as exc:
        return str(exc)


DIGITS = st.text("0123456789", min_size=1, max_size=17)


@given(
    DIGITS,
    st.sampled_from(["", " ", "."]),
    st.text("0123456789", max_size=4),
    st.sampled_from(["", "b", "B", "k", "Kb", "kIB", "m", "MB", "g", "GiB", "t", "p", "ib", "bb", "e", "x"]),
)
def test_sizes_read_by_the_plain_pattern_as_by_the_grammar(number, dot, fraction, unit):
    """`512m` and its kind take a shortcut (no float); it must read every value as go-units'
    grammar reads it, or refuse it the same way."""
    value = number + dot + fraction + unit
    assert _read(caps.compose_bytes, value) == _read(caps._bytes_of_text, value)


@given(DIGITS, st.sampled_from(["", ".", "e"]), st.text("0123456789", max_size=5))
def test_cpus_read_by_the_plain_pattern_as_by_the_grammar(number, dot, fraction):
    """`0.5` and its kind, as text or as a YAML float, take a shortcut (no Decimal); it must read
    every value as Go's float grammar and the Decimal read it."""
    for value in (number + dot + fraction, float(number + (dot + fraction if dot == "." else ""))):
        assert _read(caps.compose_millis, value) == _read(caps._millis_of_number, value)


@pytest.mark.parametrize(
    "value, expected",
    [
        (0.5, 500),
        ("0.25", 250),
        (2, 2000),
        ("0.0001", 1),
        ("1.0005", 1001),
        ("1e-3", 1),
        ("5.", 5000),
        (0, None),
        ("-0.5", None),
        (0.1, 100),
        ("0.1", 100),
        ("000.500", 500),
        ("0.000", None),
        (1e-05, 1),
        ("1.", 1000),
    ],
)
def test_compose_cpus_in_millicores_rounded_up(value, expected):
    assert caps.compose_millis(value) == expected


@pytest.mark.parametrize(
    "value, expected",
    [
        ("128974848", 128974848),
        ("129e6", 129 * 10**6),
        ("129M", 129 * 10**6),
        ("123Mi", 123 * MiB_),
        ("1Ki", 1024),
        ("1k", 1000),
        ("1.5Gi", 3 * GiB_ // 2),
        ("0.5", 1),
        ("100m", 1),
        ("1E3", 1000),
        ("1e-3", 1),
        (2, 2),
        ("1Ei", 2**60),
        ("8E", 8 * 10**18),
    ],
)
def test_kubernetes_bytes_rounded_up(value, expected):
    assert caps.kubernetes_bytes(value) == expected


@pytest.mark.parametrize(
    "value, expected",
    [
        ("500m", 500),
        ("0.5", 500),
        (1, 1000),
        ("0.1m", 1),
        ("2k", 2 * 10**6),
        # Kubernetes' n and u suffixes: 250,000 nanocores and 100 microcores, each under a millicore
        ("250000n", 1),
        ("100u", 1),
        ("1500000n", 2),
        ("2000000000n", 2000),
        ("500000u", 500),
        ("1e-3", 1),
    ],
)
def test_kubernetes_cpu_in_millicores_rounded_up(value, expected):
    assert caps.kubernetes_millis(value) == expected


@pytest.mark.parametrize(
    "value", ["1Gb", "lots", "-1", "1e999999", "10E", "1 Gi", "Mi", "1e1234567", "0x10", False, {}, "1U", "1N", "1nn"]
)
def test_kubernetes_quantities_refused(value):
    with pytest.raises(caps.QuantityError):
        caps.kubernetes_bytes(value)


@pytest.mark.parametrize(
    "key, amount, words",
    [
        ("cpuMillis", 250, "0.25 CPU"),  # cores throughout: never `250m CPU` beside `4 CPUs`
        ("cpuMillis", 1000, "1 CPU"),
        ("cpuMillis", 2750, "2.75 CPUs"),
        ("cpuMillis", 4000, "4 CPUs"),
        ("memoryBytes", 768 * 1024**2, "768 MiB"),
        ("storageBytes", 0, "0 B"),
        ("containers", 1, "1 container"),
    ],
)
def test_an_amount_is_spoken_in_one_unit_per_resource(key, amount, words):
    assert caps.spoken(key, amount) == words
