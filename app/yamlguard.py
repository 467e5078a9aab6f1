"""Safe YAML validation with bounded time and memory.

libyaml's composer recurses in C (it crashed the process at 100,000 nested brackets here) and its
scanner is quadratic in nesting depth, and an alias bomb is tiny as text but explodes for whoever
expands it. So the events are walked first, lazily, stopping at the first excess of depth or of
expanded size; only a document that passes is composed and constructed by the safe loader.
"""

import yaml

try:
    from yaml import CSafeLoader as SafeLoader
except ImportError:  # PyYAML built without libyaml
    from yaml import SafeLoader

MAX_BYTES = 256 * 1024
MAX_DEPTH = 100
# More nodes than a 256 KiB document can hold without aliases ("[1,1,...]" is two bytes a node),
# so only alias expansion can reach it.
MAX_EXPANDED_NODES = 200_000


class YamlError(ValueError):
    """A document that is refused; the message is safe to show to the client."""


def _check_events(text):
    anchors = {}  # anchor -> expanded size of its node, once the node is complete
    open_anchors = set()
    stack = []  # one [anchor, expanded size of the children so far] per open collection
    total = 0

    def count(nodes, size):
        """Add `nodes` to the document's expanded size and `size` to the enclosing collection."""
        nonlocal total
        total += nodes
        if total > MAX_EXPANDED_NODES:
            raise YamlError("Aliases expand the document beyond the allowed size.")
        if stack:
            stack[-1][1] += size

    for event in yaml.parse(text, Loader=SafeLoader):
        if isinstance(event, yaml.AliasEvent):
            if event.anchor in open_anchors:
                raise YamlError("Recursive aliases are not allowed.")
            if event.anchor not in anchors:
                raise YamlError(f"Unknown alias {event.anchor!r}.")
            size = anchors[event.anchor]
            count(size, size)
        elif isinstance(event, yaml.ScalarEvent):
            if event.anchor:
                anchors[event.anchor] = 1
            count(1, 1)
        elif isinstance(event, yaml.CollectionStartEvent):
            if len(stack) >= MAX_DEPTH:
                raise YamlError(f"Nested deeper than {MAX_DEPTH} levels.")
            if event.anchor:
                open_anchors.add(event.anchor)
            stack.append([event.anchor, 0])
        elif isinstance(event, yaml.CollectionEndEvent):
            anchor, children = stack.pop()
            if anchor:
                open_anchors.discard(anchor)
                anchors[anchor] = children + 1
            count(1, children + 1)  # the children are in `total` already


def validate(text):
    """Refuse `text` unless it is a YAML stream the safe loader accepts within the limits."""
    if len(text.encode("utf-8", "surrogatepass")) > MAX_BYTES:
        raise YamlError(f"Larger than {MAX_BYTES // 1024} KiB.")
    try:
        _check_events(text)
        for _ in yaml.load_all(text, Loader=SafeLoader):
            pass
    except yaml.YAMLError as exc:
        raise YamlError(f"Not valid YAML: {_describe(exc)}") from None


def _describe(exc):
    if isinstance(exc, yaml.MarkedYAMLError) and exc.problem:
        mark = exc.problem_mark
        where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark else ""
        context = f"{exc.context}, " if exc.context else ""
        return f"{context}{exc.problem}{where}."
    return "the document could not be parsed."
