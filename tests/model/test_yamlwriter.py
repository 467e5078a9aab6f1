"""The YAML a conversion writes (app/model/yamlwriter.py) reads back as the objects written: by
Kubernetes' reading (go-yaml v2), by a YAML 1.1 reader (PyYAML), by go-yaml v3, and by kubectl
itself, whatever the text holds."""

import json
import shutil
import subprocess

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from app.model import goyaml, yamlwriter

# Text that reads as something else written bare, or that YAML cannot hold as it is
TRICKY = [
    *("1:2", "190:20:30.15", "on", "yes", "Y", "n", "off", "2001-12-14", "2001-12-14T21:59:43Z", "=", "<<"),
    *("~", "null", "NULL", "true", "", "0x1F", "0o17", "017", "08", "1_000", "1e3", ".5", "+1", ".inf", "0b101"),
    *(" lead", "trail ", "a: b", "a #b", "#x", "- x", "-", "-x", "?", "? x", ":", "x:", "---", "--- x", "..."),
    *("'q'", '"dq"', "it's", "back\\slash", "%x", "@x", "`x", "{a}", "[a]", "!x", "&x", "*x", "|", ">", ",x"),
    *("multi\nline", "ends\n", "keeps\n\n\n", " lead\nline", "\nfirst empty", "tab\there", "\tfirst", "cr\r\nlf"),
    *("nel\x85x", "ls\u2028x", "bom\ufeffx", "ctrl\x01\x7f", "zero\0", "😀 café", "lines\n  indented\n\n  again"),
    *("trailing spaces  \nkept  ", "a\n---\nb", "a\n...\nb", "# not a comment\n", "x" * 1100, "\ttab first\nline"),
]
TEXT = st.one_of(st.sampled_from(TRICKY), st.text(st.characters(exclude_categories=["Cs"]), max_size=30))
SCALAR = st.one_of(TEXT, st.integers(-(2**63), 2**63 - 1), st.booleans(), st.none(), st.floats(allow_nan=False))
DATA = st.recursive(
    SCALAR, lambda inner: st.lists(inner, max_size=4) | st.dictionaries(TEXT, inner, max_size=4), max_leaves=25
)


def read_back(stream, loader):
    return list(yaml.load_all(stream, Loader=loader))  # noqa: S506 (the project's safe loaders)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.dictionaries(TEXT, DATA, max_size=5), min_size=1, max_size=3))
def test_every_reader_reads_back_what_was_written(documents):
    stream = yamlwriter.dump_all(documents)
    assert read_back(stream, goyaml.KubernetesLoader) == documents
    assert read_back(stream, yaml.SafeLoader) == documents  # YAML 1.1, in Python
    assert read_back(stream, goyaml.ComposeLoader) == documents


@pytest.mark.parametrize("text", TRICKY)
def test_text_is_plain_only_where_no_reader_takes_it_for_another_type(text):
    written = yamlwriter.dump_all([{"k": text}])
    for loader in (goyaml.KubernetesLoader, yaml.SafeLoader, yaml.CSafeLoader):
        assert read_back(written, loader) == [{"k": text}], (loader, written)


def test_a_text_of_several_lines_is_a_literal_block_its_line_breaks_kept():
    written = yamlwriter.dump_all([{"a": "x\ny\n", "b": "x\ny", "c": "x\n\n", "d": ["p\nq\n"]}])
    assert written == "a: |\n  x\n  y\nb: |-\n  x\n  y\nc: |+\n  x\n\nd:\n- |\n  p\n  q\n"


@pytest.mark.skipif(shutil.which("kubectl") is None, reason="kubectl is not on this machine")
def test_kubectl_reads_every_text_as_written():
    data = {f"k{index}": text for index, text in enumerate(TRICKY)} | {text: "as a key" for text in TRICKY if text}
    config_map = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "texts"}, "data": data}
    done = subprocess.run(
        [shutil.which("kubectl"), "label", "--local", "-f", "-", "checked=yes", "-o", "json"],
        input=yamlwriter.dump_all([config_map]).encode(),
        capture_output=True,
        timeout=120,
        check=True,
    )
    assert json.loads(done.stdout)["data"] == data
