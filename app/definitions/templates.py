"""Placeholders filled in inside the values of a parsed definition, never in its text: each changed
scalar value is written back over that scalar alone, so a value can never add a key, an item or a
document, and every other byte stays as written. `load` reads a definition for checking and
measuring, its undeclared variables as Compose reads them unset. Why not a round-trip library:
docs/definitions.md, "Parameters: templates filled in"."""

import re
from collections import namedtuple
from functools import lru_cache

import yaml

from app.definitions import placeholders
from app.definitions.defaults import node_at
from app.definitions.placeholders import TemplateError, Unresolved
from app.definitions.schemas import MAX_PROBLEMS, place
from app.errors import Invalid
from app.model import yamlguard

# strict: a malformed `${` is refused; escape: `$` in a value is written `$$` (the format
# interpolates the result again); typed_defaults: a plain scalar that is exactly one variable's
# default is read as YAML reads the default's text (a tool substitutes text there).
# loader: how the format's own tools read YAML (app/model/goyaml.py).
Dialect = namedtuple("Dialect", "strict escape typed_defaults loader")
LENIENT = Dialect(strict=False, escape=False, typed_defaults=False, loader=yamlguard.SafeLoader)  # formats unknown

MAX_PLACEHOLDERS = 10_000
MAX_RENDERED = 1024 * 1024
CACHED_BYTES = 32 * 1024  # the largest definition whose reading is kept for the next render
STR = "tag:yaml.org,2002:str"
UNRESOLVED = "tag:blueprints,2026:unresolved"  # set by `load` only (the safe loader refuses it in a definition)
_RESOLVER = yaml.resolver.Resolver()
_PROPERTIES = re.compile(r"(?:[&!]\S*(?:\s|#[^\n]*)*)*")  # an anchor and a tag before a scalar


_UNRESOLVING = {}  # a format's loader -> the same taking a value that waits for a variable


def _unresolving(loader):
    if loader not in _UNRESOLVING:
        _UNRESOLVING[loader] = type(f"Unresolving{loader.__name__}", (loader,), {})
        _UNRESOLVING[loader].add_constructor(UNRESOLVED, lambda loader, node: Unresolved(node.value))
    return _UNRESOLVING[loader]


def value_scalars(node):
    """(scalar node, its path, whether it stands in a flow collection) for each scalar value of a
    document, each node once (an alias's target is visited where it is first reached)."""
    seen, stack = set(), [(node, (), False)]
    while stack:
        node, path, in_flow = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        in_flow = in_flow or bool(getattr(node, "flow_style", False))
        if isinstance(node, yaml.ScalarNode):
            yield node, path, in_flow
        elif isinstance(node, yaml.MappingNode):
            for key, value in reversed(node.value):
                label = key.value if isinstance(key, yaml.ScalarNode) else "?"
                stack.append((value, (*path, label), in_flow))
        else:
            stack.extend((item, (*path, index), in_flow) for index, item in reversed(list(enumerate(node.value))))


class _Counter:
    """At most MAX_PLACEHOLDERS placeholders in one definition."""

    def __init__(self):
        self.count = 0

    def add(self, parts):
        self.count += sum(1 for _ in placeholders.placeholders(parts))
        if self.count > MAX_PLACEHOLDERS:
            raise Invalid({"yml": [f"(the document): more than {MAX_PLACEHOLDERS:,} placeholders."]})


def _templated_scalars(document, dialect, counter, problems):
    """(node, path, in_flow, parts) of each scalar value with a placeholder; a malformed one is
    added to `problems` at its place instead."""
    for node, path, in_flow in value_scalars(document):
        if node.tag != STR or "$" not in node.value:
            continue
        try:
            parts = placeholders.parse(node.value, dialect.strict)
        except TemplateError as exc:
            problems.append(f"{place(path)}: {exc}")
            continue
        counter.add(parts)
        yield node, path, in_flow, parts


def _refuse(problems):
    if problems:
        raise Invalid({"yml": problems[:MAX_PROBLEMS]})


class Template:
    """A definition read once for filling in: where each scalar value with a placeholder stands,
    its parts, style and context. `fill` is then cheap, for the many values `maximize` tries."""

    def __init__(self, text, dialect):
        self.text, self.dialect, self.slots = text, dialect, []
        self.services = {}  # a variable's first Compose service: where it stands, or the route its host is
        problems, counter = [], _Counter()
        for document in yamlguard.compose(text):
            for node, path, in_flow, parts in _templated_scalars(document, dialect, counter, problems):
                end = node.end_mark.index
                start = _PROPERTIES.match(text, node.start_mark.index, end).end()  # the anchor and tag stay
                self.slots.append((start, end, parts, node.value, node.style, in_flow))
                if (service := _service_at(document, path)) is not None:
                    for placeholder in placeholders.placeholders(parts):
                        self.services.setdefault(placeholder.name, service)
        _refuse(problems)
        self.slots.sort(key=lambda slot: slot[0])
        self.size = yamlguard.utf8_size(text)

    def fill(self, values):
        """The text with the declared names (`values`: name -> value) filled in; MissingValue for a
        `${NAME:?message}` left empty, Invalid naming `yml` for a result over MAX_RENDERED."""
        texts = {name: as_text(value) for name, value in values.items()}
        out, at, size = [], 0, self.size
        for start, end, parts, value, style, in_flow in self.slots:
            filled = placeholders.render(parts, texts, self.dialect.escape)
            sole = placeholders.sole(parts)
            typed = sole and sole.name in values and not isinstance(values[sole.name], str)
            if typed and placeholders.yields_value(sole, texts[sole.name]):
                filled = values[sole.name]  # it takes the parameter's type
            if filled == value:
                continue
            written = _scalar(filled, style, self.text[start:end], in_flow)
            size += yamlguard.utf8_size(written) - yamlguard.utf8_size(self.text[start:end])
            if size > MAX_RENDERED:
                raise Invalid({"yml": [f"(the document): rendered, it is larger than {MAX_RENDERED // 1024} KiB."]})
            out += [self.text[at:start], written]
            at = end
        return "".join(out) + self.text[at:]


def _service_at(document, path):
    """The Compose service a value at `path` belongs to: `services.S...`, or the service of the
    `x-routes` entry it is in; None elsewhere."""
    if len(path) > 1 and path[0] == "services":
        return str(path[1])
    if len(path) > 1 and path[0] == "x-routes":
        named = node_at(node_at(node_at(document, "x-routes"), path[1]), "service")
        return named.value if isinstance(named, yaml.ScalarNode) else None
    return None


def read(text, dialect):
    """The Template of `text`; one of at most CACHED_BYTES is read once while it is among the last
    16 read (`_recent`), since a burst of deploys of one blueprint renders the same text again and
    again. A Template does not change once read; sixteen of that size hold at most about 9 MB (one
    of 256 KiB with 7,000 placeholders takes 4.2 MB)."""
    return _recent(text, dialect) if len(text) <= CACHED_BYTES else Template(text, dialect)


_recent = lru_cache(maxsize=16)(Template)


def render(text, values, dialect):
    return read(text, dialect).fill(values)


def load(text, dialect, max_bytes=MAX_RENDERED):
    """The documents of a definition as its format's tools read them with no variable set."""
    if "$" not in text:
        return yamlguard.load(text, dialect.loader, max_bytes=max_bytes)
    problems, counter = [], _Counter()

    def prepare(document):
        for node, _, _, parts in _templated_scalars(document, dialect, counter, problems):
            _resolve(node, parts, dialect)

    documents = yamlguard.load(text, loader=_unresolving(dialect.loader), prepare=prepare, max_bytes=max_bytes)
    _refuse(problems)
    return documents


def _resolve(node, parts, dialect):
    resolved, unresolved = placeholders.resolve(parts)
    if unresolved:
        node.tag = UNRESOLVED
        return
    node.value = resolved
    if dialect.typed_defaults and not node.style and placeholders.sole(parts):  # plain: libyaml says "", PyYAML None
        node.tag = dialect.loader.resolve(dialect.loader, yaml.ScalarNode, resolved, (True, False))


# Values as text, and as YAML scalars


def as_text(value):
    """A parameter's value inside a longer string: JSON's spelling of numbers and booleans."""
    if isinstance(value, bool):
        return "true" if value else "false"
    return value if isinstance(value, str) else _number(value)


def _number(value):
    """An int, or a float spelled so that YAML 1.1 and 1.2 both read a float (1.0e+20, not 1e+20)."""
    text = repr(value)
    return text.replace("e", ".0e", 1) if isinstance(value, float) and "." not in text and "e" in text else text


_BOOLEAN_WORDS = {"y", "n", "yes", "no", "on", "off", "true", "false", "null", "~"}  # YAML 1.1 and 1.2
# what stays a string written plain, in YAML 1.1 and 1.2 alike: no indicator first, inner spaces
# but no final one, no `#`; in block context braces and a colon before a non-space too
_PLAIN_BLOCK = re.compile(r"[A-Za-z0-9_/$](?:[A-Za-z0-9_./@%+=~ ${}-]|:(?=[A-Za-z0-9_./@%+=~${}-]))*(?<! )")
_PLAIN_FLOW = re.compile(r"[A-Za-z0-9_/][A-Za-z0-9_./@%+=~ -]*(?<! )")
_YAML12_NUMBER = re.compile(r"[-+]?(?:\.[0-9]+|[0-9][0-9_]*(?:\.[0-9_]*)?)(?:[eE][-+]?[0-9]+)?|0[xob][0-9a-fA-F_]+")
# what YAML 1.1 prints as itself (\x85, \u2028 and \u2029 are line breaks to it; \ufeff a byte order mark)
_PRINTABLE = re.compile("[\t\n\x20-\x7e\xa0-\u2027\u202a-\ud7ff\ue000-\ufefe\uff00-\ufffd\U00010000-\U0010ffff]*")
_BLOCK_HEADER = re.compile(r"[|>]([+-]?)([1-9]?)([+-]?)([^\n]*)\n")


def _scalar(value, style, written, in_flow):
    """`value` as a YAML scalar standing where `written` stood (its style, where the value allows)."""
    if not isinstance(value, str):
        return as_text(value)
    if style in ("|", ">"):  # a block's span ends with its line breaks: another form keeps them
        block = _literal(value, written)
        return block if block is not None else _double_quoted(value) + written[len(written.rstrip(" \n")) :]
    plain = _PLAIN_FLOW if in_flow else _PLAIN_BLOCK
    if not style and plain.fullmatch(value) and _stays_text(value):
        return value
    if style == "'" and "\n" not in value and _PRINTABLE.fullmatch(value):
        return "'" + value.replace("'", "''") + "'"
    return _double_quoted(value)


def _stays_text(value):
    """Whether every YAML reader takes `value`, written plain, for a string."""
    if value.lower() in _BOOLEAN_WORDS or _YAML12_NUMBER.fullmatch(value):
        return False
    return _RESOLVER.resolve(yaml.ScalarNode, value, (True, False)) == STR


def _literal(value, written):
    """`value` as a literal block at the indentation of the block scalar `written`, or None when
    that would need an indentation indicator or a character a block cannot hold."""
    header = _BLOCK_HEADER.match(written)
    body = value.rstrip("\n")
    if header is None or header[2] or not body or body[0] in " \n" or not _PRINTABLE.fullmatch(value):
        return None
    content = written[header.end() :]
    indent = next((len(line) - len(line.lstrip(" ")) for line in content.split("\n") if line.strip()), 0)
    if indent == 0:
        return None
    breaks = len(value) - len(body)
    chomp = "-" if breaks == 0 else "" if breaks == 1 else "+"
    kept = len(content) - len(content.rstrip("\n"))
    layout = "\n" * max(kept - 1, 0) if "+" not in header[1] + header[3] and chomp != "+" else ""
    lines = [f"{' ' * indent}{line}" if line else "" for line in body.split("\n")]
    last = "\n" * (breaks if chomp == "+" else 1 if kept else 0)
    return f"|{chomp}{header[4]}\n" + "\n".join(lines) + last + layout


_ESCAPES = {"\\": "\\\\", '"': '\\"', "\n": "\\n", "\t": "\\t", "\r": "\\r", "\0": "\\0"}


def _double_quoted(value):
    out = []
    for char in value:
        if char in _ESCAPES:
            out.append(_ESCAPES[char])
        elif _PRINTABLE.fullmatch(char):
            out.append(char)
        else:
            code = ord(char)
            out.append(f"\\x{code:02x}" if code <= 0xFF else f"\\u{code:04x}" if code <= 0xFFFF else f"\\U{code:08x}")
    return '"' + "".join(out) + '"'
