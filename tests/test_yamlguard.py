"""The YAML guard: safe loading, and bounded time and memory for deep, huge or alias-bombed documents."""

import pytest

from app import yamlguard


def billion_laughs(levels=9):
    lines = ["l0: &l0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]"]
    for i in range(1, levels):
        lines.append(f"l{i}: &l{i} [" + ", ".join([f"*l{i - 1}"] * 9) + "]")
    return "\n".join(lines)


@pytest.mark.parametrize(
    "text",
    [
        "a: 1",
        "services:\n  web:\n    image: nginx\n    ports: [80, 443]\n",
        "base: &b {cpu: 1}\nweb: *b\nworker: *b\n",
        "a: 1\n---\nb: 2\n",
        "",
        "just a string",
    ],
)
def test_accepted(text):
    yamlguard.load(text)


@pytest.mark.parametrize(
    "text, message",
    [
        ("a: [1, 2", "Not valid YAML"),
        ("!!python/object/apply:os.system ['true']", "constructor"),
        ("&a [*a]", "Recursive"),
        ("a: *nowhere", "undefined alias"),
        ("a: 1\n a: 2\n\tb", "Not valid YAML"),
    ],
)
def test_refused(text, message):
    with pytest.raises(yamlguard.YamlError, match=message):
        yamlguard.load(text)


def test_alias_bomb_refused_before_expansion():
    with pytest.raises(yamlguard.YamlError, match="Aliases expand"):
        yamlguard.load(billion_laughs())


def test_a_few_aliases_of_a_large_node_are_fine():
    big = "[" + ", ".join(["x"] * 1000) + "]"
    yamlguard.load(f"a: &a {big}\nb: [*a, *a, *a, *a, *a]\n")


def test_deep_nesting_refused_early():
    """Unguarded, libyaml crashes the process at this depth; the guard stops at MAX_DEPTH."""
    depth = 120_000
    with pytest.raises(yamlguard.YamlError, match="Nested deeper"):
        yamlguard.load("[" * depth + "]" * depth)


def test_size_limit_in_bytes():
    yamlguard.load("a: " + "x" * (yamlguard.MAX_BYTES - 3))
    with pytest.raises(yamlguard.YamlError, match="Larger than 256 KiB"):
        yamlguard.load("a: " + "é" * (yamlguard.MAX_BYTES // 2))


def test_a_full_size_document_without_aliases_is_within_the_node_limit():
    flat = "[" + ",".join(["1"] * (yamlguard.MAX_BYTES // 2 - 1)) + "]"
    assert len(flat) <= yamlguard.MAX_BYTES
    yamlguard.load(flat)


def test_one_parse_returns_the_documents():
    assert yamlguard.load("a: 1\n---\n- x\n- {b: [1, 2]}\n") == [{"a": 1}, ["x", {"b": [1, 2]}]]


@pytest.mark.parametrize("text", ["- " * 150 + "x", "a:\n" + "".join(" " * i + f"k{i}:\n" for i in range(1, 150))])
def test_deep_block_nesting_is_refused_whichever_path_checks_it(text):
    """Compact block sequences pass the cheap bound and are caught on the node graph; deep
    indentation fails the bound and is caught on the events."""
    with pytest.raises(yamlguard.YamlError, match="Nested deeper"):
        yamlguard.load(text)
