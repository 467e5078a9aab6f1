"""The YAML guard: safe loading, and bounded time and memory for deep, huge or alias-bombed documents."""

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from app.model import yamlguard
from support import corpus, probes


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
def test_yaml_within_the_limits_is_loaded(text):
    assert yamlguard.load(text) == [doc for doc in yaml.safe_load_all(text)]  # what PyYAML's safe loader reads


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
def test_yaml_past_a_limit_or_invalid_is_refused_with_its_reason(text, message):
    with pytest.raises(yamlguard.YamlError, match=message):
        yamlguard.load(text)


def test_alias_bomb_refused_before_expansion():
    with pytest.raises(yamlguard.YamlError, match="Aliases expand"):
        yamlguard.load(billion_laughs())


def test_a_few_aliases_of_a_large_node_are_fine():
    big = "[" + ", ".join(["x"] * 1000) + "]"
    (loaded,) = yamlguard.load(f"a: &a {big}\nb: [*a, *a, *a, *a, *a]\n")
    assert loaded["b"] == [["x"] * 1000] * 5


@pytest.mark.parametrize(
    "depth, message", [(150, "Nested deeper than 100"), (900, "Nested deeper than 100"), (120_000, "(?i)nest")]
)
def test_deep_flow_nesting_is_refused(depth, message):
    """libyaml before 0.2.6 crashes the process at 120,000 levels, and the guard stops at
    MAX_DEPTH; libyaml 0.2.6 (PyYAML 6.0.4's wheels) refuses past 1,000 levels itself, before the
    guard sees an event. Either way it is a refusal that says why."""
    with pytest.raises(yamlguard.YamlError, match=message):
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


def typed(value):
    """`value` with the type of every part spelled out (True == 1 and 1.0 == 1 in Python)."""
    if isinstance(value, dict):
        return ("dict", [(typed(key), typed(item)) for key, item in value.items()])
    if isinstance(value, list):
        return ("list", [typed(item) for item in value])
    return (type(value).__name__, repr(value))


def same_as_pyyaml(text):
    """Whether the guard builds what PyYAML's safe loader builds from `text`, or refuses it too."""
    try:
        theirs = typed(list(yaml.load_all(text, Loader=yamlguard.SafeLoader)))
    except yaml.YAMLError:
        theirs = "refused"
    try:
        ours = typed(yamlguard.load(text))
    except yamlguard.YamlError:
        ours = "refused"
    return ours == theirs


TRICKY = [
    "a: yes\nb: on\nc: 017\nd: 22:22\ne: 1_000\nf: .inf\ng: ~\nh: 2001-12-14\ni: 1e3\nj: 0x1F\nk: !!str 5\nl: ''\nm:",
    "base: &b {cpu: 1, tags: [x, y]}\nweb:\n  <<: *b\n  cpu: 2\nworker: {<<: [*b, {mem: 1}]}\n",
    "? [1, 2]\n: x\n",
    "1: one\ntrue: yes\nnull: nothing\n2001-12-14: date\n",
    "a: !!binary aGk=\nb: !!set {x, y}\nc: !!omap [{x: 1}, {y: 2}]\nd: !!timestamp 2001-12-14t21:59:43.10-05:00\n",
    "a: 1\na: 2\n",
    "- &s shared\n- *s\n- [*s, {k: *s}]\n",
    "--- 1\n--- [a]\n--- {a: b}\n---\n",
    "a: !!map foo\n",  # a tag that does not fit its node is the loader's refusal, never a crash
    "!!map [1, 2]\n",
    "a: !!seq foo\n",
    "a: !!str [1]\n",
]


@pytest.mark.parametrize("text", TRICKY)
def test_construction_is_pyyamls(text):
    assert same_as_pyyaml(text)


def test_construction_is_pyyamls_on_every_corpus_file():
    files = sorted(corpus.folder().glob("*/*.yml"))
    assert len(files) > 40
    for file in files:
        assert same_as_pyyaml(file.read_text()), file.name


SCALARS = st.one_of(
    st.text(max_size=8), st.integers(), st.floats(allow_nan=False), st.booleans(), st.none(), st.dates()
)
VALUES = st.recursive(
    SCALARS,
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(SCALARS.filter(lambda k: k is not None), inner, max_size=4)
    ),
    max_leaves=20,
)


@given(VALUES, st.sampled_from([False, True]))
@settings(max_examples=300, deadline=None)
def test_construction_is_pyyamls_on_whatever_pyyaml_writes(value, flow):
    assert same_as_pyyaml(yaml.safe_dump(value, default_flow_style=flow, allow_unicode=True))


def test_aliases_are_bounded_across_the_whole_stream_not_a_document_at_a_time():
    """Six documents, each expanding to 100,000 nodes (within what one document was allowed
    alone), held a worker past gunicorn's timeout once an import dumped them."""
    text = probes.alias_tree_templates(count=6)
    with pytest.raises(yamlguard.YamlError, match="Aliases expand"):
        yamlguard.load(text, max_bytes=16 * 1024 * 1024)
    yamlguard.load(probes.alias_tree_templates(count=1, levels=4))  # 10,000 leaves: a few aliases are fine


def test_a_long_string_aliased_many_times_is_refused_though_its_nodes_are_few():
    """50 KB whose aliases of one 10 KB string expand to 100 MB: the bound counts characters."""
    text = probes.scalar_alias_definition()
    assert yamlguard.utf8_size(text) < 64 * 1024
    with pytest.raises(yamlguard.YamlError, match="Aliases expand"):
        yamlguard.load(text)


def test_a_large_stream_without_aliases_is_not_refused_for_a_star_in_its_text():
    """An import's text may hold 16 MiB: more nodes than any alias allowance, which only what
    aliases add is measured against (a `*` in a cron line made the old per-document count run)."""
    text = "[" + ",".join(["'*/5 * * * *'"] * 300_000) + "]"
    assert len(yamlguard.load(text, max_bytes=16 * 1024 * 1024)[0]) == 300_000


def test_outweighs_counts_expanded_data_and_stops_at_the_limit():
    shared = ["x" * 1000]
    assert not yamlguard.outweighs({"a": shared, "b": shared}, limit=3000)
    wide = [shared] * 1000
    assert yamlguard.outweighs({"a": [wide] * 1000}, limit=3000)  # a billion characters, never walked
