"""Templates below the API: the interpolation grammar, values written back inside scalars only
(a property test: no value adds a key, an item or a document, and every byte outside the replaced
values is kept), undeclared variables read at their defaults, and the limits."""

import string

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from app import definitions
from app.definitions import placeholders, templates
from app.definitions.compose import DIALECT as COMPOSE
from app.definitions.kubernetes import DIALECT as KUBERNETES
from app.definitions.placeholders import ESCAPED, MissingValue, Placeholder, TemplateError, parse
from app.errors import Invalid
from support.requirements import need, shown

Mi, Gi = 1024**2, 1024**3


# The grammar


def test_each_form_of_the_grammar():
    assert parse("$$", strict=True) == (ESCAPED,)
    assert parse("a$B1 ${C_2}", strict=True) == (
        "a",
        Placeholder("B1", "", (), "$B1"),
        " ",
        Placeholder("C_2", "", (), "${C_2}"),
    )
    nested = parse("${A:-${B}}", strict=True)[0]
    assert (nested.operator, nested.argument) == (":-", (Placeholder("B", "", (), "${B}"),))
    for operator in (":-", "-", ":?", "?", ":+", "+"):
        assert parse(f"${{A{operator}x}}", strict=True)[0].operator == operator
    assert parse("$1 $(VAR) $ $-", strict=True) == ("$1 $(VAR) $ $-",)  # a $ before anything else is text
    assert parse("${A:-x}}", strict=True)[1] == "}"  # the default ends at the first }


@pytest.mark.parametrize("text", ["${A", "${A:-${B}", "${}", "${1A}", "${A%b}", "${ A}", "x ${A:-" + "${A:-" * 11])
def test_a_malformed_placeholder_is_refused_where_strict_and_text_elsewhere(text):
    with pytest.raises(TemplateError):
        parse(text, strict=True)
    assert "".join(part if isinstance(part, str) else part.text for part in parse(text, strict=False)) == text


def test_rendering_replaces_declared_names_and_keeps_the_rest_as_written():
    parts = parse("${A}-${B:-b}-${A:+on}-${C:-${A}}-$$-${U}-${U:-u}", strict=True)
    assert placeholders.render(parts, {"A": "x$y", "B": "", "C": "c"}, escape=True) == "x$$y-b-on-c-$$-${U}-${U:-u}"
    assert placeholders.render(parts, {"A": "x$y", "B": "", "C": "c"}, escape=False) == "x$y-b-on-c-$$-${U}-${U:-u}"
    assert placeholders.render(parse("${A:+on}${A+set}", True), {"A": ""}, escape=False) == "set"
    with pytest.raises(MissingValue) as info:
        placeholders.render(parse("${A:?give a tag}", True), {"A": ""}, escape=False)
    assert (info.value.name, str(info.value)) == ("A", "give a tag")


def test_resolving_reads_undeclared_variables_as_unset():
    assert placeholders.resolve(parse("${A:-1g}/${B-}/$$/${C:-${D:-x}}", True)) == ("1g//$/x", set())
    assert placeholders.resolve(parse("${A}${B:?m}${C:+r}${D:-${E}}", True))[1] == {"A", "B", "C", "E"}


# Values written back inside scalars

TEMPLATE = """\
# a comment that stays
x-common: &common
  image: app:${TAG}   # trailing comment
services:
  web:
    <<: *common
    command: ["serve", "--port", "${PORT}", '${TAG}']
    deploy:
      replicas: ${REPLICAS}
    environment:
      NOTE: |
        first ${NOTE}
        second
      FOLDED: >-
        ${NOTE}
      PLAIN: before ${NOTE} after
      QUOTED: '${NOTE}'
      DOUBLE: "${NOTE}"
      UNDECLARED: ${OTHER} $$HOME ${TAG}
    labels: {note: "${NOTE}", tag: "${TAG}"}
  "${NOTE}": {image: x}
"""


def rendered(values):
    text = templates.render(TEMPLATE, values, COMPOSE)
    return text, yaml.safe_load(text)


def test_a_sole_placeholder_takes_its_type_and_keys_are_never_replaced():
    text, doc = rendered({"TAG": "1.2", "PORT": 8080, "REPLICAS": 3, "NOTE": "n"})
    web = doc["services"]["web"]
    assert web["deploy"]["replicas"] == 3 and web["command"] == ["serve", "--port", 8080, "1.2"]
    assert web["image"] == "app:1.2" and doc["x-common"]["image"] == "app:1.2"  # the anchor, once
    assert web["environment"]["UNDECLARED"] == "${OTHER} $$HOME 1.2"
    assert "${NOTE}" in doc["services"]  # a mapping key
    assert "# a comment that stays\n" in text and "app:1.2   # trailing comment\n" in text


@given(st.text(string.printable + "é😀\u2028\x85\x00\ufeff", max_size=40))
@settings(max_examples=300, deadline=None)
def test_no_value_adds_a_key_an_item_or_a_document(note):
    """Whatever the value, the rendered document is the template's with that value in each place
    (`$` doubled: Compose interpolates the result again), and the lines without one are kept."""
    text, doc = rendered({"TAG": "t", "PORT": 1, "REPLICAS": 1, "NOTE": note})
    _, expected = rendered({"TAG": "t", "PORT": 1, "REPLICAS": 1, "NOTE": "SENTINEL"})

    def put(value):
        if isinstance(value, dict):
            return {key: put(item) for key, item in value.items()}
        if isinstance(value, list):
            return [put(item) for item in value]
        return value.replace("SENTINEL", note.replace("$", "$$")) if isinstance(value, str) else value

    assert doc == put(expected)
    assert len(list(yaml.safe_load_all(text))) == 1
    lines = text.splitlines()
    replaced = ("second", "FOLDED: >-", "NOTE: |")  # inside or heading a replaced block (quoted if it must)
    assert all(line in lines for line in TEMPLATE.splitlines() if "$" not in line and line.strip() not in replaced)


def test_bytes_outside_the_replaced_values_are_the_templates():
    text, _ = rendered({"TAG": "t", "PORT": 1, "REPLICAS": 1, "NOTE": "n"})
    expected = TEMPLATE.replace('"${PORT}"', "${PORT}").replace("FOLDED: >-", "FOLDED: |-")  # typed; a literal block
    for name, value in (("TAG", "t"), ("PORT", "1"), ("REPLICAS", "1"), ("NOTE", "n")):
        expected = expected.replace(f"${{{name}}}", value)
    assert text == expected.replace('  "n": {image: x}', '  "${NOTE}": {image: x}')  # a key stays


def test_a_block_scalar_stays_a_block_when_the_value_allows():
    text, doc = rendered({"TAG": "t", "PORT": 1, "REPLICAS": 1, "NOTE": "multi\nline"})
    assert "      NOTE: |\n        first multi\n        line\n        second\n" in text
    assert doc["services"]["web"]["environment"]["NOTE"] == "first multi\nline\nsecond\n"


def test_kubernetes_values_are_not_escaped_and_its_own_syntax_is_kept():
    text = (
        "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers:\n  - name: c\n    image: x\n"
        "    args: ['$(HOME)', '${N}', 'echo ${#A[@]}']\n"
    )
    doc = yaml.safe_load(templates.render(text, {"N": "a$b"}, KUBERNETES))
    assert doc["spec"]["containers"][0]["args"] == ["$(HOME)", "a$b", "echo ${#A[@]}"]


# Read for checking: undeclared variables


def unknown(*names):
    """One container, its memory and cpu not known, waiting for `names`."""
    return need(0, 0, 1, unbounded=["web: cpu", "web: memory"], unresolved=names)


def compose(service):
    return "services:\n  web:\n    image: nginx\n" + "".join(f"    {line}\n" for line in service.splitlines())


@pytest.mark.parametrize(
    "service, expected",
    [
        ("mem_limit: ${MEM:-1g}\ncpus: ${CPUS-0.5}", need(Gi, 500, 1)),
        (
            "deploy:\n  replicas: ${REPLICAS:-3}\n  resources: {limits: {memory: '${M:-256m}', cpus: '1'}}",
            need(768 * Mi, 3000, 3),
        ),
        ("mem_limit: ${MEM}", unknown("MEM")),
        ("mem_limit: ${MEM:?set it}\ncpus: '${CPUS:+2}'\nscale: $N", unknown("CPUS", "MEM", "N")),
        ("mem_limit: ${A:-${B}}m\nstorage_opt: {size: '${SIZE}'}", unknown("B", "SIZE")),
        ("mem_limit: 1g\ncpus: 1\nenvironment: ['A=${A}', 'B=$$B']\nuser: '${UID}:0'", need(Gi, 1000, 1)),
    ],
)
def test_undeclared_variables_are_measured_at_their_defaults_or_unresolved(service, expected):
    assert shown(definitions.requirements("compose", compose(service))) == expected


def test_a_malformed_placeholder_in_compose_is_refused_with_its_place():
    with pytest.raises(Invalid) as info:
        definitions.requirements("compose", compose("command: echo ${items[0]}"))
    assert info.value.errors["yml"][0].startswith("services.web.command: '${items[0]}'")


def test_a_kubernetes_replica_count_from_a_default_is_a_number():
    text = (
        "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d}\nspec:\n  replicas: ${R:-4}\n"
        "  selector: {matchLabels: {a: b}}\n  template:\n    metadata: {labels: {a: b}}\n    spec:\n"
        "      containers: [{name: c, image: '${IMAGE}',\n"
        "                    resources: {limits: {memory: '${M}', cpu: 100u}}}]\n"
    )
    assert shown(definitions.requirements("k8s", text)) == need(
        0, 4, 4, unbounded=["Deployment/d/c: memory"], unresolved=["M"]
    )


def test_at_most_10000_placeholders():
    many = "services:\n  web:\n    image: x\n    environment: [" + ", ".join(["A=$A"] * 10_001) + "]\n"
    with pytest.raises(Invalid, match="10,000 placeholders"):
        definitions.requirements("compose", many)


def test_a_rendered_definition_over_1_mib_is_refused():
    text = "services:\n  web:\n    image: x\n    environment:\n" + "".join(f"      V{i}: ${{BIG}}\n" for i in range(20))
    with pytest.raises(Invalid, match="1024 KiB"):
        templates.render(text, {"BIG": "x" * 60_000}, COMPOSE)
    assert len(templates.render(text, {"BIG": "x" * 50_000}, COMPOSE)) > 1_000_000


def test_a_definition_is_read_once_for_the_renders_that_follow_unless_it_is_large():
    text = "services:\n  web:\n    image: nginx:${TAG:-1}\n"
    assert templates.read(text, COMPOSE) is templates.read(text, COMPOSE)
    assert templates.read(text, COMPOSE).fill({"TAG": "2"}) == text.replace("${TAG:-1}", "2")
    assert templates.read(text, COMPOSE).fill({}) == text  # nothing kept from the fill before
    large = text + "x-padding: " + "a" * templates.CACHED_BYTES + "\n"
    assert templates.read(large, COMPOSE) is not templates.read(large, COMPOSE)
