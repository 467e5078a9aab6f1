"""What a format module makes of one template of a document: its key, what the blueprint would
hold, or why it is skipped or refused, and notes on what was inferred or left out."""

import re
from dataclasses import dataclass, field

from app import definitions
from app.definitions import compose, secret_places
from app.definitions.parameters import NAME

SECRET_PATTERN = "[A-Za-z0-9]{24}"  # noqa: S105 (a generator pattern for a secret no catalog gives)
# Words of a variable's name that make its value a secret (SMTP_PASS, dbPassword, API_KEY...)
SECRET_WORDS = frozenset(
    {"PASS", "PASSWORD", "PASSWD", "PWD", "PASSPHRASE", "SECRET", "TOKEN", "KEY", "APIKEY", "CREDENTIAL", "PRIVATE"}
)
_WORDS = re.compile(r"[^A-Za-z0-9]+|(?<=[a-z0-9])(?=[A-Z])")


@dataclass
class Candidate:
    key: str
    title: str
    fields: dict | None = None  # the blueprint's writable fields
    skipped: str | None = None  # why no blueprint is made of it
    problems: list = field(default_factory=list)  # why it is refused before any write
    notes: list = field(default_factory=list)
    origin: dict = field(default_factory=dict)  # what the blueprint's `source` keeps beside format, name and key
    exported_from: str | None = None  # the id of the document an export of ours was made of


def named(entries, where, noun, found):
    """(index, entry, name) of each entry of a catalog's list of variables whose `name` is a
    parameter name not given before; a problem at `where.N.name` for any other."""
    seen = set()
    for index, entry in enumerate(entries if isinstance(entries, list) else []):
        name = entry.get("name") if isinstance(entry, dict) else None
        if not isinstance(name, str) or not NAME.fullmatch(name):
            found.problems.append(f"{where}.{index}.name: {str(name)[:64]!r} is not a {noun} name.")
        elif name in seen:
            found.problems.append(f"{where}.{index}.name: {name!r} is given twice.")
        else:
            seen.add(name)
            yield index, entry, name


def parameters(properties, required=()):
    """A blueprint's `parameters` from properties by name, or None when there are none."""
    if not properties:
        return None
    schema = {"type": "object", "properties": properties}
    required = [name for name in properties if name in required]
    return {**schema, "required": required} if required else schema


def names_a_secret(name):
    """Whether a variable's name says its value is a secret: a word of it (split at `_`, `-`, `.`
    and camelCase) is one of SECRET_WORDS, or its plural; `PUBLIC` in it says otherwise."""
    words = {word.upper() for word in _WORDS.split(name) if word}
    return "PUBLIC" not in words and bool(
        {word.removesuffix("S") for word in words} & SECRET_WORDS | words & SECRET_WORDS
    )


def secrets_marked(fields, notes):
    """`fields` with each string parameter whose name says it is a secret made `writeOnly` (never
    shown, a Secret's on a cluster), but where it stands somewhere a secret may not (a label, a
    path): there it stays readable, and a note says why."""
    declared = fields.get("parameters")
    properties = declared.get("properties") if isinstance(declared, dict) else None
    kind, text = fields.get("blueprintType"), fields.get("yml")
    if not isinstance(properties, dict) or not isinstance(kind, str) or not isinstance(text, str):
        return fields  # the blueprint's schema names what is wrong
    named = {
        name
        for name, schema in properties.items()
        if isinstance(name, str)
        and isinstance(schema, dict)
        and names_a_secret(name)
        and schema.get("type") == "string"
        and not schema.get("writeOnly")
    }
    fmt = definitions.format_of(kind)
    if not named or fmt is None:
        return fields
    kept = set()
    for where, names in secret_places.misplaced(text, named, fmt.DIALECT.strict, fmt is compose):
        kept |= set(names)
        notes.append(f"{', '.join(names)}: its name says it is a secret, but it stands at {where}; left readable.")
    marked = {
        name: {**schema, "writeOnly": True} if name in named - kept else schema for name, schema in properties.items()
    }
    if named - kept:
        notes.append(f"{', '.join(sorted(named - kept))}: write-only, as the name says it is a secret.")
    return {**fields, "parameters": {**declared, "properties": marked}}


def checked_with(name, properties, required, notes, example="example"):
    """Make `name` a required parameter with nothing to check the template with: it is checked
    with `example` meanwhile (its only `examples` value), which the notes say."""
    properties[name]["examples"] = [example]
    if name not in required:
        required.append(name)
    notes.append(f"{name}: no value given; required, and the template is checked with {example!r} meanwhile.")


def escaped(value):
    """Text put into a Compose file as it is: `$` doubled, so that Compose reads no variable."""
    return value.replace("$", "$$") if isinstance(value, str) else value


def tags(values):
    """A catalog's categories or tags as a blueprint's: lowercase, `-` for what a tag cannot hold,
    each once, at most 20."""
    found = [re.sub(r"[^a-z0-9_.-]+", "-", str(one).lower()).strip("-")[:64] for one in values]
    return list(dict.fromkeys(tag for tag in found if tag))[:20]
