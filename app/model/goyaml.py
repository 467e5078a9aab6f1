"""YAML read as the Go tools of each format read it, not as PyYAML's YAML 1.1 does: Docker Compose
decodes with go-yaml v3 (only `true`/`false` are booleans, `1:20` and `yes` are text, `0o17` is a
number, an unquoted date a timestamp), Kubernetes with sigs.k8s.io/yaml over go-yaml v2 (`yes` and
`on` are booleans, a date is the text written, and every key is made a string on the way to JSON).
A loader here resolves each plain scalar with the Go library's own rules (its resolve.go), and
`odd_places` finds what the format's tool refuses: a key that is not a string, a timestamp."""

import datetime
import math
import re
import struct

import yaml

from app.model.yamlguard import SafeLoader

BOOL, INT, FLOAT, NULL, STR, TIMESTAMP, MERGE = (
    f"tag:yaml.org,2002:{kind}" for kind in ("bool", "int", "float", "null", "str", "timestamp", "merge")
)
_V3_WORDS = {
    **dict.fromkeys(["true", "True", "TRUE", "false", "False", "FALSE"], BOOL),
    **dict.fromkeys(["", "~", "null", "Null", "NULL"], NULL),
    **dict.fromkeys(
        [".nan", ".NaN", ".NAN", ".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF", "-.inf", "-.Inf", "-.INF"], FLOAT
    ),
    "<<": MERGE,
}
_V2_WORDS = {
    **_V3_WORDS,
    **dict.fromkeys(
        ["y", "Y", "yes", "Yes", "YES", "on", "On", "ON", "n", "N", "no", "No", "NO", "off", "Off", "OFF"], BOOL
    ),
}
_TRUE = {"true", "True", "TRUE", "y", "Y", "yes", "Yes", "YES", "on", "On", "ON"}
_GO_INT = re.compile(r"[+-]?(?:0[xX][0-9a-fA-F]+|0[oO]?[0-7]+|0[bB][01]+|[1-9][0-9]*|0)")
_YAML_FLOAT = re.compile(r"[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?")
_GO_FLOAT = re.compile(r"[-+]?(?:(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][-+]?[0-9]+)?|(?i:inf|infinity|nan))")
_TIMESTAMP = re.compile(
    r"([0-9]{4})-([0-9]{1,2})-([0-9]{1,2})"
    r"(?:[Tt]([0-9]{1,2}):([0-9]{1,2}):([0-9]{1,2})(?:\.[0-9]+)?(Z|[+-][0-9]{2}:[0-9]{2})"
    r"| ([0-9]{1,2}):([0-9]{1,2}):([0-9]{1,2})(?:\.[0-9]+)?)?"
)


def go_int(text):
    """An integer as strconv.ParseInt(text, 0, 64) reads it once go-yaml took out `_` (then as
    ParseUint); None if it does not."""
    plain = text.replace("_", "")
    if not _GO_INT.fullmatch(plain):
        return None
    sign, digits = (-1, plain[1:]) if plain[0] == "-" else (1, plain.lstrip("+"))
    prefix = digits[:2].lower()
    base = {"0x": 16, "0o": 8, "0b": 2}.get(prefix)
    value = sign * (int(digits[2:], base) if base else int(digits, 8 if digits[0] == "0" else 10))
    return value if -(2**63) <= value < 2**64 else None


def _timestamp(text):
    """Whether go-yaml reads `text` as a time: one of its layouts, with a real date and time."""
    found = _TIMESTAMP.fullmatch(text) if text[4:5] == "-" else None
    if not found:
        return False
    year, month, day, hour, minute, second = _fields(found)
    try:
        datetime.datetime(year, month, day, hour, minute, second)
    except ValueError:
        return False
    return True


_NUMERIC = frozenset("0123456789+-.")  # what go-yaml tries to read as a number or a time


def _numeric_tag(value, timestamps):
    """go-yaml's resolve() for a plain scalar that starts as a number may: the tag it takes."""
    if value.isdigit() and value.isascii() and len(value) < 19 and (value[0] != "0" or len(value) == 1):
        return INT  # `3`, `8080`: nearly every one, at once (`017` is octal, `08` a float)
    if value[0] == ".":
        return FLOAT if _GO_FLOAT.fullmatch(value) else STR
    if timestamps and _timestamp(value):
        return TIMESTAMP
    if go_int(value) is not None:
        return INT
    plain = value.replace("_", "")
    return FLOAT if _YAML_FLOAT.fullmatch(plain) else STR


class _GoResolver:
    """A plain scalar resolved as the Go library resolves it; quoted scalars, tags and collections
    as YAML says."""

    WORDS, TIMESTAMPS = _V3_WORDS, True
    UNIQUE_KEYS = True  # a key repeated in a mapping is refused (yamlguard), as go-yaml v3 and strict decoding do

    def resolve(self, kind, value, implicit):
        if kind is not yaml.ScalarNode:
            return super().resolve(kind, value, implicit)
        if not implicit[0]:  # quoted: text (no path resolvers are set)
            return STR
        found = self.WORDS.get(value)  # true, null, <<... ("" is null: value[0] exists below)
        if found is not None:
            return found
        return _numeric_tag(value, self.TIMESTAMPS) if value[0] in _NUMERIC else STR


def _construct_int(loader, node):
    value = node.value
    return int(value) if value.isdigit() and value.isascii() and value[0] != "0" and len(value) < 19 else go_int(value)


def _construct_float(loader, node):
    text = node.value.replace("_", "") if node.value[:1] != "." else node.value
    lowered = text.lower().lstrip("+")
    if lowered in (".inf", "-.inf", ".nan"):
        return {".inf": math.inf, "-.inf": -math.inf, ".nan": math.nan}[lowered]
    return float(text)


def _construct_bool(loader, node):
    return node.value in _TRUE


def _fields(found):
    """Year, month, day, hour, minute and second of a _TIMESTAMP match."""
    parts = found.groups()
    clock = parts[3:6] if parts[3] else parts[7:10]
    return [int(part or 0) for part in (*parts[:3], *clock)]


def _construct_timestamp(loader, node):
    """The date, or the time in its zone (UTC when it names none), a timestamp names."""
    found = _TIMESTAMP.fullmatch(node.value)
    if found is None:  # an explicit !!timestamp tag on other text
        raise yaml.constructor.ConstructorError(None, None, "not a timestamp", node.start_mark)
    year, month, day, hour, minute, second = _fields(found)
    if not (found[4] or found[8]):
        return datetime.date(year, month, day)
    zone = found[7] if found[7] and found[7] != "Z" else None
    offset = datetime.timedelta(hours=int(zone[:3]), minutes=int(zone[0] + zone[4:])) if zone else datetime.timedelta()
    return datetime.datetime(year, month, day, hour, minute, second, tzinfo=datetime.timezone(offset))


class ComposeLoader(_GoResolver, SafeLoader):
    """YAML as Docker Compose reads it (go-yaml v3)."""


class KubernetesLoader(_GoResolver, SafeLoader):
    """YAML as Kubernetes' tools read it (go-yaml v2 under sigs.k8s.io/yaml): a timestamp is text."""

    WORDS, TIMESTAMPS = _V2_WORDS, False


def kubernetes_tag(value):
    """The tag Kubernetes' tools (go-yaml v2) give `value` written plain."""
    found = _V2_WORDS.get(value)
    return found if found is not None else _numeric_tag(value, False) if value[0] in _NUMERIC else STR


for _loader in (ComposeLoader, KubernetesLoader):
    _loader.add_constructor(INT, _construct_int)
    _loader.add_constructor(FLOAT, _construct_float)
    _loader.add_constructor(BOOL, _construct_bool)
    _loader.add_constructor(TIMESTAMP, _construct_timestamp)


def odd_places(document, allowed=lambda path: False):
    """(path, what) of each key that is not a string and each timestamp of `document`, but where
    `allowed(path)` (a place the format takes anything); walked only for a document the loader
    flagged (yamlguard.Documents.odd)."""
    found, stack = [], [(document, ())]
    while stack:
        node, path = stack.pop()
        if isinstance(node, dict):
            for key, value in node.items():
                if not isinstance(key, str):
                    found.append(((*path, key), "key"))
                stack.append((value, (*path, key)))
        elif isinstance(node, list):
            stack.extend((value, (*path, index)) for index, value in enumerate(node))
        elif isinstance(node, (datetime.date, datetime.datetime)) and not allowed(path):
            found.append((path, "timestamp"))
    return sorted(found, key=lambda pair: [str(part) for part in pair[0]])


def written(value):
    """A scalar as YAML writes it, for a message."""
    if value is None or isinstance(value, bool):
        return "null" if value is None else "true" if value else "false"
    if isinstance(value, (datetime.date, datetime.datetime)):
        return value.isoformat()
    return repr(value) if isinstance(value, str) else str(value)


def key_text(key):
    """A key as sigs.k8s.io/yaml writes it in JSON (ValueError for one it cannot: a null)."""
    if isinstance(key, str):
        return key
    if isinstance(key, bool):
        return "true" if key else "false"
    if isinstance(key, int):
        return str(key)
    if isinstance(key, float):
        return _float32_text(key)
    raise ValueError(f"unsupported map key {key!r}")


def _float32_text(value):
    """strconv.FormatFloat(value, 'g', -1, 32): the shortest digits that read back as the same
    float32, in exponent form from 1e+06 and below 1e-04."""
    if math.isinf(value) or math.isnan(value):
        return ".nan" if math.isnan(value) else ".inf" if value > 0 else "-.inf"
    single = struct.unpack("f", struct.pack("f", value))[0]
    for places in range(9):
        text = f"{abs(single):.{places}e}"
        if struct.unpack("f", struct.pack("f", float(text)))[0] == abs(single):
            break
    mantissa, exponent = text.split("e")
    digits, exponent = mantissa.replace(".", "").rstrip("0") or "0", int(exponent)
    sign = "-" if single < 0 else ""
    if exponent < -4 or exponent >= 6:
        return f"{sign}{digits[0]}{'.' + digits[1:] if digits[1:] else ''}e{exponent:+03d}"
    if exponent >= 0:
        whole, fraction = digits[: exponent + 1].ljust(exponent + 1, "0"), digits[exponent + 1 :]
    else:
        whole, fraction = "0", "0" * (-exponent - 1) + digits
    return f"{sign}{whole}{'.' + fraction if fraction else ''}"


def string_keys(node):
    """`node` with every key made the string sigs.k8s.io/yaml makes it (ValueError for a key it
    cannot convert)."""
    if isinstance(node, dict):
        return {key_text(key): string_keys(value) for key, value in node.items()}
    if isinstance(node, list):
        return [string_keys(value) for value in node]
    return node
