"""Real files changed at one node, the way people mistype them: a value of another YAML type, a list
written as a mapping and the reverse, a key that is a number, a boolean or a date, a known field
given an odd value, a field dropped or wrapped, a line written twice. Each mutant is YAML text
(PyYAML writes the types as YAML reads them back: an int key stays an int, a date a timestamp),
built from a seeded `random.Random`, so that a failing mutant is named by its seed and index."""

import copy
import datetime
import json

import yaml

# Values of every YAML type a slip produces
ODD_VALUES = [
    0,
    1,
    80,
    -1,
    2**64,
    0.5,
    -0.5,
    1.5,
    1e3,
    True,
    False,
    None,
    "",
    "x",
    "80:80",
    "1g",
    "yes",
    datetime.date(2020, 1, 1),
    datetime.datetime(2020, 1, 1, 12, 0),
    [],
    ["x"],
    [1],
    [80.5],
    {},
    {"x": 1},
    {1: "x"},
    {"a": {"b": [1]}},
]
ODD_KEYS = [1, 80, 0.5, True, False, None, datetime.date(2020, 1, 1)]
# Fields of a Compose service people get wrong, with values they write there
SERVICE_FIELDS = {
    "ports": [{80: 80}, [80.5], ["80:80", 80], [{"target": "x"}], "80:80", [True]],
    "environment": [{1: "one"}, [1], ["A=1", True], {"A": [1]}, {"A": {"b": 1}}, {"A": 1.5, "B": None}],
    "labels": [{True: "x"}, ["a=b", 1], {"a": 1}, {"a": None}],
    "extra_hosts": [{1: "1.2.3.4"}, ["host:1.2.3.4", 1], {"host": ["1.2.3.4"]}],
    "volumes": [[1], ["./a:/a", 2], {"./a": "/a"}, [{"type": "bind"}], [None]],
    "command": [[1, True], 1, {"a": 1}, ["a", None]],
    "entrypoint": [1, [1.5]],
    "working_dir": [1, True, datetime.date(2020, 1, 1)],
    "restart": [1, True, None, "sometimes"],
    "image": [1, 2.5, True, datetime.date(2020, 1, 1), ["nginx"]],
    "stop_grace_period": [datetime.date(2020, 1, 1), 10, "10x", True],
    "shm_size": [-0.5, 0.5, "1.5g", True, [1]],
    "mem_limit": [1.5, "1.5g", -1, True, "lots", [1]],
    "cpus": ["x", -1, True, [1], "1.5.2"],
    "depends_on": [{"db": 1}, [1], "db", {1: {"condition": "service_started"}}],
    "networks": [{1: None}, [1], "default", {"default": 1}],
    "healthcheck": [{"test": 1}, {"test": [1]}, {"interval": 10}, {"retries": "x"}, []],
    "deploy": [{"replicas": "two"}, {"replicas": 1.5}, {"resources": {"limits": {"memory": 1.5}}}, []],
    "dns": [1, [1]],
    "expose": [[1.5], [True], "80"],
    "user": [1000, True],
    "hostname": [1, datetime.date(2020, 1, 1)],
    "logging": [{"options": {"max-size": 10}}, {"driver": 1}],
    "ulimits": [{"nofile": "x"}, {"nofile": {"soft": "x", "hard": 1}}, {"nproc": 1.5}],
    "sysctls": [{"a": 1.5}, {1: 1}, ["a=1", 1]],
    "tmpfs": [1, [1], {"/a": 1}],
    "env_file": [1, [1], {"path": 1}],
    "secrets": [[1], {"a": 1}],
    "build": [1, {"context": 1}, {"args": {1: 2}}, [1]],
    "scale": ["two", 1.5, True, -1],
}
KINDS = ("retype", "retype", "key", "list-as-mapping", "mapping-as-list", "field", "field", "drop", "wrap")


def nodes(document):
    """(parent, key) of every value in the document, and of the root as (None, None)."""
    found, stack = [(None, None)], [document]
    while stack:
        node = stack.pop()
        items = node.items() if isinstance(node, dict) else enumerate(node) if isinstance(node, list) else ()
        for key, value in items:
            found.append((node, key))
            stack.append(value)
    return found


def _as_mapping(items):
    """A list as a slip writes it as a mapping: `KEY=value` and `host:container` split, numbers
    read as YAML reads them."""
    mapped = {}
    for index, item in enumerate(items):
        if isinstance(item, str) and ("=" in item or ":" in item):
            key, _, value = item.partition("=") if "=" in item else item.partition(":")
            mapped[_scalar(key)] = _scalar(value)
        else:
            mapped[index if isinstance(item, (dict, list)) else item] = item if isinstance(item, (dict, list)) else None
    return mapped


def _scalar(text):
    """Text as YAML reads it written plain (`80` a number, `true` a boolean), else the text."""
    try:
        value = yaml.safe_load(text)
    except yaml.YAMLError:
        return text
    return text if isinstance(value, (dict, list)) else value


def _services(document):
    services = document.get("services") if isinstance(document, dict) else None
    return [value for value in services.values() if isinstance(value, dict)] if isinstance(services, dict) else []


def mutate(document, rng, fields=SERVICE_FIELDS):
    """`document` (not changed) changed at one node; and what was done, in words."""
    document = copy.deepcopy(document)
    kind = rng.choice(KINDS)
    services = _services(document)
    if kind == "field" and services and fields:
        service, field = rng.choice(services), rng.choice(sorted(fields))
        service[field] = rng.choice(fields[field])
        return document, f"a service's {field}: {service[field]!r}"
    places = [(parent, key) for parent, key in nodes(document) if parent is not None]
    if not places:
        return rng.choice(ODD_VALUES), "the document replaced"
    if kind == "list-as-mapping":
        lists = [place for place in places if isinstance(place[0][place[1]], list)]
        places = lists or places
    elif kind == "mapping-as-list":
        mappings = [place for place in places if isinstance(place[0][place[1]], dict)]
        places = mappings or places
    elif kind == "key":
        places = [place for place in places if isinstance(place[0], dict)] or places
    parent, key = rng.choice(places)
    value = parent[key]
    if kind == "key" and isinstance(parent, dict):
        new = rng.choice(ODD_KEYS)
        parent[new] = parent.pop(key)
        return document, f"the key {key!r} written {new!r}"
    if kind == "list-as-mapping" and isinstance(value, list):
        parent[key] = _as_mapping(value)
    elif kind == "mapping-as-list" and isinstance(value, dict):
        parent[key] = rng.choice([[f"{k}={v}" for k, v in value.items()], list(value), list(value.values())])
    elif kind == "drop" and isinstance(parent, dict):
        del parent[key]
        return document, f"{key!r} dropped"
    elif kind == "wrap":
        parent[key] = rng.choice([[value], {"value": value}])
    else:
        parent[key] = rng.choice(ODD_VALUES)
    return document, f"{key!r}: {value!r:.60} became {parent[key]!r:.60}"


def line_doubled(text, rng):
    """`text` with one of its lines written twice, as a slip of copy and paste leaves it; and what
    was done, in words."""
    lines = [line if line.endswith("\n") else line + "\n" for line in text.splitlines(keepends=True)]
    written = [at for at, line in enumerate(lines) if line.strip() and not line.lstrip().startswith("#")]
    at = rng.choice(written)
    lines.insert(at, lines[at])
    return "".join(lines), f"line {at + 1} written twice: {lines[at].strip()!r:.60}"


def text(document):
    """YAML text of a document that reads back as the same types."""
    return yaml.safe_dump(document, sort_keys=False, allow_unicode=True, width=1000)


def text_stream(documents):
    return yaml.safe_dump_all(documents, sort_keys=False, allow_unicode=True, width=1000)


def _key(key):
    if isinstance(key, (datetime.date, datetime.datetime)):
        return key.isoformat()
    return key if isinstance(key, str) else json.dumps(key)


def as_json(node):
    """A mutant as a JSON client sends it: every key a string, a date its ISO text."""
    if isinstance(node, dict):
        return {_key(key): as_json(value) for key, value in node.items()}
    if isinstance(node, list):
        return [as_json(value) for value in node]
    return node.isoformat() if isinstance(node, (datetime.date, datetime.datetime)) else node
