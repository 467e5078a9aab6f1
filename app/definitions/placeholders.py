"""The Compose Specification's interpolation grammar (`$NAME`, `${NAME}`, `${NAME:-default}` and
the other forms, `$$`), used in both formats. A string is parsed once into parts, then either
rendered (declared names replaced, the rest kept as written) or resolved (read as Compose reads it
with the variables unset). A malformed `${` is a TemplateError where Compose would refuse it;
in Kubernetes, whose scripts use `${#A[@]}`, it is text."""

import re
from dataclasses import dataclass

NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
OPERATORS = (":-", ":?", ":+", "-", "?", "+")  # two-character ones first
MAX_NESTING = 10
_DOLLAR = re.compile(r"\$")
_DOLLAR_OR_CLOSE = re.compile(r"[$}]")


class TemplateError(ValueError):
    """A malformed placeholder; the message shows the template, never a value."""


class _Unclosed(TemplateError):
    pass


class _Escaped:
    def __repr__(self):
        return "ESCAPED"


ESCAPED = _Escaped()  # `$$`


@dataclass(frozen=True)
class Placeholder:
    name: str
    operator: str  # "" for $NAME and ${NAME}
    argument: tuple  # the parts of its default, message or replacement
    text: str  # as written


def parse(text, strict):
    """The parts of `text`: strings, ESCAPED and Placeholders."""
    parts, _ = _parse(text, 0, 0, strict, inside=False)
    return tuple(parts)


def _parse(text, pos, depth, strict, inside):
    """Parts from `pos` to the end, or (`inside` a placeholder) to the `}` closing it."""
    parts, start = [], pos
    special = _DOLLAR_OR_CLOSE if inside else _DOLLAR
    while match := special.search(text, pos):
        at = match.start()
        if text[at] == "}":
            _text(parts, text[start:at])
            return parts, at + 1
        found = None
        if text.startswith("$$", at):
            found, end = ESCAPED, at + 2
        elif text.startswith("${", at):
            try:
                found, end = _braced(text, at, depth, strict)
            except TemplateError:
                if strict:
                    raise
        elif name := NAME.match(text, at + 1):
            found, end = Placeholder(name[0], "", (), text[at : name.end()]), name.end()
        if found is None:
            pos = at + 1  # this `$` is text
            continue
        _text(parts, text[start:at])
        parts.append(found)
        pos = start = end
    if inside:
        raise _Unclosed()
    _text(parts, text[start:])
    return parts, len(text)


def _braced(text, at, depth, strict):
    name = NAME.match(text, at + 2)
    if name is None:
        raise TemplateError(f"{_shown(text, at)}: a placeholder needs a name ([A-Za-z_][A-Za-z0-9_]*)")
    after = name.end()
    if after == len(text):
        raise TemplateError(f"{_shown(text, at)}: the placeholder is not closed with }}")
    if text.startswith("}", after):
        return Placeholder(name[0], "", (), text[at : after + 1]), after + 1
    operator = next((op for op in OPERATORS if text.startswith(op, after)), None)
    if operator is None:
        raise TemplateError(f"{_shown(text, at)}: expected }} or one of {' '.join(OPERATORS)} after the name")
    if depth >= MAX_NESTING:
        raise TemplateError(f"{_shown(text, at)}: placeholders nested deeper than {MAX_NESTING} levels")
    try:
        argument, end = _parse(text, after + len(operator), depth + 1, strict, inside=True)
    except _Unclosed:
        raise TemplateError(f"{_shown(text, at)}: the placeholder is not closed with }}") from None
    return Placeholder(name[0], operator, tuple(argument), text[at:end]), end


def _shown(text, at):
    snippet = text[at : at + 40]
    return repr(snippet + ("..." if len(text) > at + 40 else ""))


def _text(parts, text):
    if text:
        parts.append(text)


def placeholders(parts):
    """Every placeholder in `parts`, nested ones included."""
    for part in parts:
        if isinstance(part, Placeholder):
            yield part
            yield from placeholders(part.argument)


def sole(parts):
    """The placeholder `parts` consist of, if exactly one (the scalar then takes its value's type)."""
    return parts[0] if len(parts) == 1 and isinstance(parts[0], Placeholder) else None


class MissingValue(ValueError):
    """`${NAME:?message}` with an empty value (a declared name is always set, so `?` never is)."""

    def __init__(self, name, message):
        super().__init__(message or f"{name} must be set")
        self.name = name


def yields_value(placeholder, value):
    """Whether `placeholder` comes out as the declared `value` itself (text), not its argument."""
    if placeholder.operator in ("", "-", "?"):
        return True
    return placeholder.operator in (":-", ":?") and value != ""


def render(parts, values, escape):
    """The text with each name in `values` (name -> text) replaced, `$` doubled in what is put in
    where `escape` (so that Compose, which interpolates the result again, reads the value as it
    is); undeclared placeholders and `$$` are kept as written. MissingValue for a `:?` or `?`."""
    out = []
    for part in parts:
        if isinstance(part, str):
            out.append(part)
        elif part is ESCAPED:
            out.append("$$")
        elif part.name not in values:
            out.append(part.text)
        else:
            out.append(_declared(part, values[part.name], values, escape))
    return "".join(out)


def _declared(placeholder, value, values, escape):
    operator = placeholder.operator
    if operator in (":+", "+"):
        return render(placeholder.argument, values, escape) if operator == "+" or value != "" else ""
    if yields_value(placeholder, value):
        return value.replace("$", "$$") if escape else value
    if operator == ":?":
        raise MissingValue(placeholder.name, render(placeholder.argument, {}, escape=False))
    return render(placeholder.argument, values, escape)  # ":-" with an empty value: the default


def resolve(parts, empty=False):
    """(text, unresolved): the text as Compose makes it with every variable unset: `$$` is `$`, a
    `:-` or `-` default applies; `unresolved` names the variables without one (the text is then
    unknown, each kept as written; with `empty`, read as empty, as Compose reads them once it has
    warned)."""
    out, unresolved = [], set()
    for part in parts:
        if isinstance(part, str):
            out.append(part)
        elif part is ESCAPED:
            out.append("$")
        elif part.operator in (":-", "-"):
            text, missing = resolve(part.argument, empty)
            out.append(text)
            unresolved |= missing
        else:
            out.append("" if empty else part.text)
            unresolved.add(part.name)
    return "".join(out), unresolved


def unset(text):
    """`text` as Compose makes it with the variables it needs unset (each empty)."""
    return resolve(parse(text, strict=False), empty=True)[0]


def as_unset(value):
    """A document with each value that waits for a variable without a default read as Compose
    reads it unset (empty where the variable stands)."""
    if isinstance(value, Unresolved):
        return unset(value)
    if isinstance(value, dict):
        return {key: as_unset(item) for key, item in value.items()}
    if isinstance(value, list):
        return [as_unset(item) for item in value]
    return value


class Unresolved(str):
    """A value that needs variables with no default (read with `resolve`): its text, and their names."""

    @property
    def names(self):
        return resolve(parse(self, strict=False))[1]


def decided(value):
    """Whether `value` is a string that no variable leaves undecided."""
    return isinstance(value, str) and not isinstance(value, Unresolved)
