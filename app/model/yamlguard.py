"""Safe YAML loading with bounded time and memory, in one parse: depth and alias expansion are
checked on the composed node graph (or, for text that could nest past what libyaml composes
safely, event by event first) before anything is constructed. Why each bound:
docs/security.md, "YAML, read within bounds"."""

import json
from dataclasses import dataclass

import yaml

try:
    from yaml import CSafeLoader as SafeLoader
except ImportError:  # PyYAML built without libyaml
    from yaml import SafeLoader

MAX_BYTES = 256 * 1024
MAX_DEPTH = 100
# What aliases may add to a stream, all its documents together, whatever its size: a node counts
# one and a scalar its characters too, so a stream without aliases weighs no more than its text,
# and one with them expands to at most its text and a largest definition's worth more.
MAX_ALIAS_GROWTH = MAX_BYTES
SURELY_COMPOSABLE = 1_000  # nesting libyaml composes without risk (it crashed past 20,000)


@dataclass(frozen=True)
class Parsed:
    """YAML text that passed `load`, the documents it was loaded into, and the loader that read
    them (each format's tools read scalars their own way: app/model/goyaml.py): what a body's
    definition is until it is stored, so that it is parsed once."""

    text: str
    documents: list
    loader: type


def parse(text, loader=SafeLoader):
    """`text` read by `loader`, or YamlError."""
    return Parsed(text, load(text, loader), loader)


def text_of(value):
    """The text of a definition, parsed or not."""
    return value.text if isinstance(value, Parsed) else value


class Documents(list):
    """The documents of a stream, which is what a format judges; `odd` when one holds a key that is
    not a plain string or a timestamp, which the format's reading then looks for (the rest of a
    stream is never walked for them); `built` when the service made them (a conversion's objects,
    whose names and labels it made as Kubernetes takes them: its tests hold it to that)."""

    def __init__(self, documents=(), odd=False, built=False):
        super().__init__(documents)
        self.odd, self.built = odd, built


class YamlError(ValueError):
    """A document that is refused; the message is safe to show to the client."""


def _bounded_nesting(text):
    """An upper bound of the nesting depth: a block level needs a column more than its parent,
    a flow level a bracket."""
    longest = max(map(len, text.splitlines()), default=0)
    return longest + text.count("[") + text.count("{")


def _check_events(text):
    """Refuse a document nested too deep, reading parser events only as far as the excess."""
    depth = 0
    for event in yaml.parse(text, Loader=SafeLoader):
        if isinstance(event, yaml.CollectionStartEvent):
            depth += 1
            if depth > MAX_DEPTH:
                raise YamlError(f"Nested deeper than {MAX_DEPTH} levels.")
        elif isinstance(event, yaml.CollectionEndEvent):
            depth -= 1


def _check_node(root):
    """What aliases add to a composed document: its expanded weight less the weight of its
    distinct nodes, each shared (aliased) node measured once; its depth checked."""
    sizes = {}  # id(node) -> (expanded weight, depth) once measured
    own = 0  # the weight of the distinct nodes, as the text writes them
    open_nodes = set()
    stack = [(root, False)]
    while stack:
        node, children_done = stack.pop()
        if isinstance(node, yaml.ScalarNode):
            if id(node) not in sizes:
                sizes[id(node)] = (1 + len(node.value), 0)
                own += 1 + len(node.value)
            continue
        children = [part for pair in node.value for part in pair] if isinstance(node, yaml.MappingNode) else node.value
        if children_done:
            open_nodes.discard(id(node))
            size = 1 + sum(sizes[id(child)][0] for child in children)
            depth = 1 + max((sizes[id(child)][1] for child in children), default=0)
            if depth > MAX_DEPTH:
                raise YamlError(f"Nested deeper than {MAX_DEPTH} levels.")
            own += 1
            sizes[id(node)] = (size, depth)
            continue
        if id(node) in open_nodes:
            raise YamlError("Recursive aliases are not allowed.")
        if id(node) in sizes:
            continue
        open_nodes.add(id(node))
        stack.append((node, True))
        stack.extend((child, False) for child in children if id(child) not in sizes)
    return sizes[id(root)][0] - own


def outweighs(value, limit=MAX_BYTES):
    """Whether data built from a document (its aliases shared, as loaded) weighs more than
    `limit` once expanded, counted as the alias check counts: one a node, a string its characters
    too. It stops at the limit, so it costs no more than a document of that size."""
    weight, stack = 0, [value]
    while stack:
        item = stack.pop()
        weight += 1 + (len(item) if isinstance(item, str) else 0)
        if weight > limit:
            return True
        if isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return False


def nested_deeper(value, most=MAX_DEPTH):
    """Whether data (lists and mappings, as JSON or TOML gives them) nests deeper than `most`,
    walked without recursion."""
    stack = [(value, 0)]
    while stack:
        item, depth = stack.pop()
        if depth > most:
            return True
        children = item.values() if isinstance(item, dict) else item if isinstance(item, list) else ()
        stack.extend((child, depth + 1) for child in children)
    return False


def utf8_size(text):
    """The size a limit counts: UTF-8 bytes."""
    return len(text.encode("utf-8", "surrogatepass"))


def compose(text, max_bytes=MAX_BYTES):
    """The checked node graphs of the documents of a YAML stream (they carry their place in the
    text: app/definitions/templates.py writes values back there); else YamlError."""
    return _read(text, SafeLoader, max_bytes, lambda loader, node: node)


def load(text, loader=SafeLoader, prepare=None, max_bytes=MAX_BYTES):
    """The documents of a YAML stream the safe loader accepts within the limits; else YamlError.
    `prepare(node)` may change each document's nodes before they are constructed."""

    def construct(loader, node):
        if prepare is not None:
            prepare(node)
        return _construct(loader, node)

    return _read(text, loader, max_bytes, construct)


STR, SEQ, MAP, TIMESTAMP = (f"tag:yaml.org,2002:{kind}" for kind in ("str", "seq", "map", "timestamp"))


def _construct(loader, root):
    """What `loader.construct_document(root)` makes, in a fifth of the time: the nodes nearly all
    of a definition is made of (strings, sequences, mappings whose keys are strings) are built
    here; any other (a number, a date, a merge `<<`, a tag of the loader's own...) is built by the
    loader. The document is checked first, so the depth this recurses to is bounded; an alias
    is built once, as the loader shares it."""
    built = {}
    documents = loader.documents
    unique = getattr(loader, "UNIQUE_KEYS", False)

    def build(node):
        found = built.get(id(node))
        if found is not None:
            return found
        tag = node.tag
        if tag == SEQ and isinstance(node, yaml.SequenceNode):
            value = built[id(node)] = []
            value.extend(
                [
                    item.value if item.tag == STR and isinstance(item, yaml.ScalarNode) else build(item)
                    for item in node.value
                ]
            )
        elif tag == MAP and isinstance(node, yaml.MappingNode) and _plain_keys(node.value):
            value = built[id(node)] = {}
            for key, item in node.value:  # a string (most nodes are) is its text: no call, no sharing
                value[key.value] = item.value if item.tag == STR and isinstance(item, yaml.ScalarNode) else build(item)
            if unique and len(value) < len(node.value):
                _refuse_repeated_keys(node)
        else:
            if unique and not isinstance(node, yaml.ScalarNode):
                _refuse_repeated_keys(node)  # before the loader folds merges `<<` into the mapping
            if tag == TIMESTAMP or isinstance(node, yaml.MappingNode):
                documents.odd = True
            value = built[id(node)] = loader.construct_document(node)
        return value

    try:
        return build(root)
    finally:  # `build` refers to itself: unlinked, the loader and its scratch go now, not at a collection
        build = None


def _refuse_repeated_keys(root):
    """YamlError naming the first key a mapping at or below `root` repeats, as go-yaml v3 says it:
    keys compare as written (`1` and `"1"` are one key, and so are two merges `<<`)."""
    stack, seen = [root], set()
    while stack:
        node = stack.pop()
        if isinstance(node, yaml.ScalarNode) or id(node) in seen:
            continue
        seen.add(id(node))
        pairs = node.value if isinstance(node, yaml.MappingNode) else [(None, item) for item in node.value]
        first = {}
        for key, item in pairs:
            stack.append(item)
            if isinstance(key, yaml.ScalarNode):
                line = key.start_mark.line + 1
                if key.value in first:
                    said = json.dumps(key.value)
                    raise YamlError(
                        f"Not valid YAML: line {line}: mapping key {said} already defined at line {first[key.value]}."
                    )
                first[key.value] = line
            elif key is not None:
                stack.append(key)


def _plain_keys(pairs):
    """Whether every key of a mapping node is a plain string (a loop: `all` over a generator
    costs a sixth more of the whole construct)."""
    for key, _ in pairs:  # noqa: SIM110
        if key.tag != STR or not isinstance(key, yaml.ScalarNode):
            return False
    return True


def _read(text, loader_class, max_bytes, each):
    if utf8_size(text) > max_bytes:
        raise YamlError(f"Larger than {max_bytes // 1024} KiB.")
    try:
        bound = _bounded_nesting(text)
        if bound > SURELY_COMPOSABLE:
            _check_events(text)
        surely_safe = bound <= MAX_DEPTH and "&" not in text and "*" not in text
        loader = loader_class(text)
        try:
            documents = loader.documents = Documents()
            growth = 0
            while loader.check_node():
                node = loader.get_node()
                if not surely_safe:
                    growth += _check_node(node)
                    if growth > MAX_ALIAS_GROWTH:
                        raise YamlError("Aliases expand the document beyond the allowed size.")
                documents.append(each(loader, node))
            return documents
        finally:
            loader.dispose()
    except yaml.YAMLError as exc:
        raise YamlError(f"Not valid YAML: {_describe(exc)}") from None


def _describe(exc):
    if isinstance(exc, yaml.MarkedYAMLError) and exc.problem:
        mark = exc.problem_mark
        where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark else ""
        context = f"{exc.context}, " if exc.context else ""
        return f"{context}{exc.problem}{where}."
    return "the document could not be parsed."
