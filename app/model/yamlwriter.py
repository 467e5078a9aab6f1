"""A YAML stream written for Kubernetes' tools from objects as a conversion builds them: mappings
with string keys, lists, text, numbers, booleans and null, in block style, keys in their order,
nothing shared (no anchors).

A string is written plain only where every reader takes it for that text: go-yaml v2 (kubectl and
the API server: `yes` and `on` are booleans) and YAML 1.1 (PyYAML and the tools built on it: `1:2`
is the integer 62, `2001-12-14` a date). Else it is single-quoted; a text of several lines is a
literal block (`|`), and one holding what YAML cannot show as it is, double-quoted with escapes.
PyYAML's representer takes ten times as long for the same stream (docs/performance.md)."""

import math
import re

import yaml

from app.model import goyaml

_INDICATORS = frozenset("!&*[]{}|>'\"%@`#,")  # a plain scalar cannot start with one
_SHOWN = "\x20-\x7e\xa0-\u2027\u202a-\ud7ff\ue000-\ufefe\uff00-\ufffd\U00010000-\U0010ffff"  # printable, no line breaks
_SHOWN_LINE = re.compile(f"[{_SHOWN}]*")
_SHOWN_LINES = re.compile(f"[\n\t{_SHOWN}]*")
_ESCAPED = re.compile(f'[^{_SHOWN}]|["\\\\]')
_ESCAPES = {'"': '\\"', "\\": "\\\\", "\n": "\\n", "\t": "\\t", "\r": "\\r", "\0": "\\0"}
_LONGEST_KEY = 1024  # longer, a key must be written explicitly (`? key`)
_CACHED, _MOST_CACHED = 128, 8192  # the longest text whose verdict is kept; how many are
_KEYS, _VERDICTS = {}, {}  # a key -> as written; a text -> whether it is written plain
_YAML11 = yaml.resolver.Resolver()


def dump_all(documents):
    """The documents (mappings) as a YAML stream, `---` between them."""
    out = []
    for index, document in enumerate(documents):
        if index:
            out.append("---\n")
        if document:
            _mapping(document, 0, out, "")
        else:
            out.append("{}\n")
    return "".join(out)


def _mapping(mapping, indent, out, first):
    """Each pair at `indent`, the first after `first` (a list item's dash) instead of indented."""
    pad = " " * indent
    for key, value in mapping.items():
        written = _KEYS.get(key) if type(key) is str else None
        if written is None:
            written = _key(key, pad)
        lead, first = first or pad, ""
        kind = type(value)
        if kind is str and (_VERDICTS.get(value) or _plain(value)):
            out.append(f"{lead}{written} {value}\n")
        elif kind is dict and value:
            out.append(f"{lead}{written}\n")
            _mapping(value, indent + 2, out, "")
        elif kind is list and value:
            out.append(f"{lead}{written}\n")
            _sequence(value, indent, out)
        else:
            out.append(f"{lead}{written} {_scalar(value, indent + 2)}\n")


def _sequence(items, indent, out):
    pad = " " * indent
    for item in items:
        kind = type(item)
        if kind is dict and item:
            _mapping(item, indent + 2, out, f"{pad}- ")
        elif kind is list and item:
            out.append(f"{pad}-\n")
            _sequence(item, indent + 2, out)
        else:
            out.append(f"{pad}- {_scalar(item, indent + 2)}\n")


def _key(key, pad):
    """A key as written with its colon, explicit (`? key`, then `:` at `pad`) past _LONGEST_KEY."""
    written = (key if type(key) is str and _plain(key) else _quoted(key)) + ":"
    if len(written) > _LONGEST_KEY:
        return f"? {written[:-1]}\n{pad}:"
    if type(key) is str:
        _kept(_KEYS, key, written)
    return written


def _kept(cache, text, value):
    """`value` kept for a short `text` (`name`, `tcp-80` repeat), the cache emptied when full."""
    if len(text) <= _CACHED:
        if len(cache) >= _MOST_CACHED:
            cache.clear()
        cache[text] = value


def _scalar(value, indent):
    """A value that is no non-empty collection, as written after `key: ` or `- `; a literal
    block's lines at `indent`."""
    if isinstance(value, str):
        if _plain(value):
            return value
        if "\n" in value and value[0] not in " \t\n" and _SHOWN_LINES.fullmatch(value):
            return _literal(value, " " * indent)
        return _quoted(value)
    if value is None or isinstance(value, bool):
        return "null" if value is None else "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return _float(value)
    if value == {} or value == []:
        return "{}" if isinstance(value, dict) else "[]"
    raise TypeError(f"no YAML is written for a {type(value).__name__}")


def _plain(text):
    """Whether `text` reads back as itself written plain, by go-yaml v2 and by YAML 1.1."""
    verdict = _VERDICTS.get(text)
    if verdict is None:
        verdict = _reads_back_plain(text)
        _kept(_VERDICTS, text, verdict)
    return verdict


def _reads_back_plain(text):
    return (
        text != ""
        and text == text.strip(" ")
        and _SHOWN_LINE.fullmatch(text) is not None
        and text[0] not in _INDICATORS
        and not (text[0] in "-?:" and text[1:2] in ("", " "))
        and not text.startswith(("---", "..."))
        and ": " not in text
        and " #" not in text
        and not text.endswith(":")
        and goyaml.kubernetes_tag(text) == goyaml.STR
        and _YAML11.resolve(yaml.ScalarNode, text, (True, False)) == goyaml.STR
    )


def _quoted(text):
    """Single-quoted where every character shows as it is; else double-quoted, with escapes."""
    text = str(text)
    if _SHOWN_LINE.fullmatch(text):
        return "'" + text.replace("'", "''") + "'"
    return '"' + _ESCAPED.sub(_escape, text) + '"'


def _escape(found):
    character = found.group()
    code = ord(character)
    if character in _ESCAPES:
        return _ESCAPES[character]
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"


def _literal(text, pad):
    """A literal block: each line as it is, the final line breaks kept (`|`: one, `|-`: none,
    `|+`: several)."""
    chomping = "-" if not text.endswith("\n") else "+" if text.endswith("\n\n") else ""
    lines = (text[:-1] if text.endswith("\n") else text).split("\n")
    return f"|{chomping}\n" + "\n".join(pad + line if line else "" for line in lines)


def _float(value):
    """As YAML 1.1 reads a float back: with a point (`1.0e+17`), `.inf`, `.nan`."""
    if not math.isfinite(value):
        return ".nan" if math.isnan(value) else ".inf" if value > 0 else "-.inf"
    text = repr(value)
    return text if "." in text or "e" not in text else text.replace("e", ".0e")
