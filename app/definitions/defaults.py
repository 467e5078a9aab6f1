"""A profile's container defaults written into a rendered definition, so that what is deployed is
what the fit counted: Compose's `deploy.resources.limits` of the service (or `mem_limit` and
`cpus` where the service writes its limits in that short form: Compose refuses the two mixed),
Kubernetes' `resources.limits` of the container.

Like a filled-in value (templates.py), each amount is added in the text itself, as a key put first
in the mapping that holds it (flow style where a level is new: `deploy: {resources: {limits:
{memory: 256m}}}`), and every other byte stays as written: comments, order, layout."""

import yaml

from app.model import quantities, yamlguard

# How each format writes an amount: resource -> (key, text of an amount)
COMPOSE = {"memory": ("memory", quantities.compose_bytes_text), "cpu": ("cpus", quantities.cpus_text)}
COMPOSE_SHORT = {"memory": ("mem_limit", quantities.compose_bytes_text), "cpu": ("cpus", quantities.cpus_text)}
KUBERNETES = {"memory": ("memory", quantities.binary_text), "cpu": ("cpu", quantities.millis_text)}


def write(text, compose, requirements, amounts):
    """`text` (a definition rendered, measured as `requirements`) with the `amounts` (fit.defaulted:
    {index of a perContainer entry: {resource: amount}}) written in; `compose` tells the format."""
    if not amounts:
        return text
    documents = yamlguard.compose(text)
    edits = {}
    for index, written in amounts.items():
        entry = requirements["perContainer"][index]
        if compose:
            service = node_at(
                node_at(next(doc for doc in documents if isinstance(doc, yaml.MappingNode)), "services"), entry["name"]
            )
            names, path = (
                (COMPOSE_SHORT, ()) if entry.get("shortForm") else (COMPOSE, ("deploy", "resources", "limits"))
            )
            edit = _add(text, service, path, _pairs(names, written))
        else:
            container = documents[entry["at"][0]]
            for step in entry["at"][1:]:
                container = node_at(container, step)
            edit = _add(text, container, ("resources", "limits"), _pairs(KUBERNETES, written))
        edits.setdefault(edit[0], edit)  # a mapping anchored once and merged into two gets one edit
    out, at = [], 0
    for start, end, inserted in sorted(edits.values()):
        out += [text[at:start], inserted]
        at = end
    return "".join(out) + text[at:]


def _pairs(names, written):
    """`key: amount` of each amount written, memory first."""
    return [
        f"{names[resource][0]}: {names[resource][1](written[resource])}"
        for resource in ("memory", "cpu")
        if resource in written
    ]


def node_at(node, step):
    """The value node at `step` (a key, or an index in a sequence), through merge keys; else None."""
    if isinstance(node, yaml.SequenceNode) and isinstance(step, int):
        return node.value[step] if step < len(node.value) else None
    if not isinstance(node, yaml.MappingNode):
        return None
    merged = []
    for key, value in node.value:
        if key.tag == "tag:yaml.org,2002:merge":
            merged += value.value if isinstance(value, yaml.SequenceNode) else [value]
        elif isinstance(key, yaml.ScalarNode) and key.value == step:
            return value
    return next((found for source in merged if (found := node_at(source, step)) is not None), None)


def _add(text, node, path, pairs):
    """(start, end, text) that puts `pairs` in the mapping at `path` under `node`, making the levels
    it lacks."""
    for depth, key in enumerate(path):
        below = node_at(node, key)
        if not isinstance(below, yaml.MappingNode):
            nested = ", ".join(pairs)
            for level in reversed(path[depth + 1 :]):
                nested = f"{level}: {{{nested}}}"
            if below is None:
                return put_first(text, node, [f"{key}: {{{nested}}}"])
            start, end = below.start_mark.index, below.end_mark.index  # a null: `deploy:` or `deploy: ~`
            return start, end, f"{' ' if start == end else ''}{{{nested}}}"
        node = below
    return put_first(text, node, pairs)


def put_first(text, mapping, pairs):
    """(start, end, text) putting `pairs` first in a mapping node: after its `{` (past an anchor or
    a tag), or before its first key at that key's indentation."""
    if mapping.flow_style or not mapping.value:
        at = text.index("{", mapping.start_mark.index) + 1
        return at, at, ", ".join(pairs) + (", " if mapping.value else "")
    first, newline = mapping.value[0][0], "\r\n" if "\r\n" in text else "\n"  # the file's own line ends
    return (
        first.start_mark.index,
        first.start_mark.index,
        "".join(f"{pair}{newline}{' ' * first.start_mark.column}" for pair in pairs),
    )
