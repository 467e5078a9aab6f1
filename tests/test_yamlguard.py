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
    yamlguard.validate(text)


@pytest.mark.parametrize(
    "text, message",
    [
        ("a: [1, 2", "Not valid YAML"),
        ("!!python/object/apply:os.system ['true']", "constructor"),
        ("&a [*a]", "Recursive"),
        ("a: *nowhere", "Unknown alias"),
        ("a: 1\n a: 2\n\tb", "Not valid YAML"),
    ],
)
def test_refused(text, message):
    with pytest.raises(yamlguard.YamlError, match=message):
        yamlguard.validate(text)


def test_alias_bomb_refused_before_expansion():
    with pytest.raises(yamlguard.YamlError, match="Aliases expand"):
        yamlguard.validate(billion_laughs())


def test_a_few_aliases_of_a_large_node_are_fine():
    big = "[" + ", ".join(["x"] * 1000) + "]"
    yamlguard.validate(f"a: &a {big}\nb: [*a, *a, *a, *a, *a]\n")


def test_deep_nesting_refused_early():
    """Unguarded, libyaml crashes the process at this depth; the guard stops at MAX_DEPTH."""
    depth = 120_000
    with pytest.raises(yamlguard.YamlError, match="Nested deeper"):
        yamlguard.validate("[" * depth + "]" * depth)


def test_size_limit_in_bytes():
    yamlguard.validate("a: " + "x" * (yamlguard.MAX_BYTES - 3))
    with pytest.raises(yamlguard.YamlError, match="Larger than 256 KiB"):
        yamlguard.validate("a: " + "é" * (yamlguard.MAX_BYTES // 2))


def test_a_full_size_document_without_aliases_is_within_the_node_limit():
    flat = "[" + ",".join(["1"] * (yamlguard.MAX_BYTES // 2 - 1)) + "]"
    assert len(flat) <= yamlguard.MAX_BYTES
    yamlguard.validate(flat)
