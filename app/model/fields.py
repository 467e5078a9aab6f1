"""Field types shared by every schema: the contract's rules for strings, booleans, caps, YAML,
timestamps and ids, in bodies and in query strings."""

import re
from datetime import UTC

import marshmallow as ma

from app.model import dns, quantities, yamlguard


class Pattern(ma.validate.Regexp):
    """The whole value must match; the document publishes the same ECMA-compatible `^...$` pattern."""

    def __init__(self, pattern, error):
        super().__init__(f"^{pattern}$", error=error)

    def __call__(self, value):
        if self.regex.fullmatch(value) is None:
            raise ma.ValidationError(self.error.format(input=value, regex=self.regex.pattern))
        return value


# What str.strip() trims, as a character class both Python's and ECMA's regular expressions read
_SPACE = "\\t\\n\\x0b\\x0c\\r\\x1c-\\x20\\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000"


# What a one-line field refuses inside its text: control characters (Unicode Cc) and the
# bidirectional overrides and isolates, which make a name read otherwise than it is stored.
_NOT_ONE_LINE = "\\x00-\\x1f\\x7f-\\x9f\\u202a-\\u202e\\u2066-\\u2069"
NOT_ONE_LINE = re.compile(f"[{_NOT_ONE_LINE}]")


DNS_LABEL = Pattern(
    dns.LABEL.regex.pattern,
    error="1-63 lowercase letters, digits and -, starting and ending with a letter or digit.",
)  # an instance's and a team's name: a Compose project, a Kubernetes namespace and a label value alike


def one_line(text):
    """`text` as one line that reads as it is stored: each control character or bidirectional
    override written as its escape (`\\u202e`), for an answer that echoes what was refused."""
    return None if text is None else NOT_ONE_LINE.sub(lambda found: f"\\u{ord(found[0]):04x}", str(text))


class Trimmed(ma.validate.Validator):
    """A length counted after trimming (the contract's rule) and, for a one-line field, no control
    character or bidirectional override inside; published as the pattern that says so: a
    maxLength would refuse the white space the field trims."""

    def __init__(self, min=0, max=None, one_line=False):  # noqa: A002 (ma.validate.Length's names)
        self.min, self.max, self.one_line = min, max, one_line

    def __call__(self, value):
        if len(value) < self.min or (self.max is not None and len(value) > self.max):
            if self.min and self.max is not None:
                raise ma.ValidationError(f"Length must be between {self.min} and {self.max} after trimming.")
            raise ma.ValidationError(
                f"Longer than maximum length {self.max} after trimming."
                if self.max is not None
                else f"Shorter than minimum length {self.min} after trimming."
            )
        found = NOT_ONE_LINE.search(value) if self.one_line else None
        if found:
            raise ma.ValidationError(
                f"One line of text: no control character or bidirectional override (U+{ord(found[0]):04X} at "
                f"character {found.start() + 1})."
            )
        return value

    @property
    def pattern(self):
        edge = f"[^{_SPACE}{_NOT_ONE_LINE}]" if self.one_line else f"[^{_SPACE}]"
        middle = f"[^{_NOT_ONE_LINE}]" if self.one_line else "[\\s\\S]"
        inner = f"{edge}(?:{middle}{{0,{self.max - 2}}}{edge})?" if self.max else f"{edge}{middle}*"
        core = inner if self.min else f"(?:{inner})?"
        return f"^[{_SPACE}]*{core}[{_SPACE}]*$" if self.max != 1 else f"^[{_SPACE}]*{edge}?[{_SPACE}]*$"


class Text(ma.fields.String):
    """A string stored trimmed; null (when allowed) means unset; its length (Trimmed) counted
    after trimming."""

    def __init__(self, **kwargs):
        kwargs.setdefault("allow_none", True)
        kwargs.setdefault("load_default", None)
        super().__init__(**kwargs)
        lengths = [validator for validator in self.validators if isinstance(validator, Trimmed)]
        if lengths:
            self.metadata = {"pattern": lengths[0].pattern, **self.metadata}

    def _deserialize(self, value, attr, data, **kwargs):
        return super()._deserialize(value, attr, data, **kwargs).strip()


def Name():
    return Text(validate=Trimmed(1, 200, one_line=True))


class StrictBoolean(ma.fields.Boolean):
    """JSON true/false only: "true", 1 and "yes" are refused."""

    def _deserialize(self, value, attr, data, **kwargs):
        if value is True or value is False:
            return value
        raise self.make_error("invalid")


class QueryBoolean(ma.fields.Boolean):
    """ "true" or "false" in a query string, nothing else, as a JSON body would be."""

    def _deserialize(self, value, attr, data, **kwargs):
        if value in ("true", "false"):
            return value == "true"
        raise self.make_error("invalid")


class Cap(ma.fields.Field):
    """A cap as a string or a JSON number, kept as text once its grammar accepts it.

    The document publishes the grammar's own pattern, and for the number form its bounds.
    """

    def __init__(self, grammar, example, **kwargs):
        number = {"type": "number", "minimum": 0, "exclusiveMaximum": grammar.json_maximum}
        if grammar.json_multiple:
            number["multipleOf"] = grammar.json_multiple
        super().__init__(
            allow_none=True,
            load_default=None,
            metadata={
                "description": grammar.description,
                "example": example,
                "anyOf": [
                    {"type": "string", "maxLength": quantities.MAX_TEXT, "pattern": grammar.pattern},
                    number,
                    {"type": "null"},
                ],
            },
            **kwargs,
        )
        self.grammar = grammar

    def _deserialize(self, value, attr, data, **kwargs):
        try:
            text = quantities.from_json(value)
            self.grammar.parse(text)
        except quantities.QuantityError as exc:
            raise ma.ValidationError(str(exc)) from None
        return text


class KubernetesSize(ma.fields.String):
    """A number of bytes written as a Kubernetes quantity (`1Gi`, `500M`), kept as written."""

    def __init__(self, **kwargs):
        super().__init__(validate=ma.validate.Length(max=quantities.MAX_TEXT), **kwargs)

    def _deserialize(self, value, attr, data, **kwargs):
        text = super()._deserialize(value, attr, data, **kwargs)
        try:
            amount = quantities.kubernetes_bytes(text, "the size")
        except quantities.QuantityError as exc:
            raise ma.ValidationError(str(exc)) from None
        if not 0 < amount <= quantities.INT64:
            raise ma.ValidationError("Must be more than 0 bytes and fit in a 64-bit integer.")
        return text


class Yaml(ma.fields.String):
    """YAML text, kept byte for byte (its white space is YAML: a block scalar's final newlines, a
    document's indentation); loaded once, by the loader `loader_for(type)` gives for the type the
    body names (None when it names none): a `yamlguard.Parsed`, its text and its documents, which
    the store measures and keeps the text of."""

    def __init__(self, loader_for, type_field, **kwargs):
        super().__init__(allow_none=True, load_default=None, **kwargs)
        self.loader_for, self.type_field = loader_for, type_field

    def _deserialize(self, value, attr, data, **kwargs):
        text = super()._deserialize(value, attr, data, **kwargs)
        kind = data.get(self.type_field) if isinstance(data, dict) else None
        try:
            return yamlguard.parse(text, self.loader_for(kind if isinstance(kind, str) else None))
        except yamlguard.YamlError as exc:
            raise ma.ValidationError(str(exc)) from None


def rfc3339(value):
    """A datetime as RFC 3339 UTC with milliseconds, as MongoDB keeps them."""
    if value.tzinfo is not None:
        value = value.astimezone(UTC).replace(tzinfo=None)
    return value.isoformat(timespec="milliseconds") + "Z"


class Timestamp(ma.fields.Field):
    """RFC 3339 UTC with milliseconds, as MongoDB keeps them."""

    def __init__(self, **kwargs):
        super().__init__(dump_only=True, metadata={"type": "string", "format": "date-time"}, **kwargs)

    def _serialize(self, value, attr, obj, **kwargs):
        return rfc3339(value)


def Reported(schema, description=None):
    """What the service itself writes into a document (a sync, a delivery, an observation, an
    engine's state): read-only, and null until it has."""
    metadata = {"description": description} if description else {}
    return ma.fields.Nested(schema, dump_only=True, allow_none=True, dump_default=None, metadata=metadata)


class Id(ma.fields.Field):
    """The ObjectId as 24 hex digits; `draft`: null too, for what a dry run would create."""

    def __init__(self, draft=False, **kwargs):
        kind = ["string", "null"] if draft else "string"
        super().__init__(
            attribute="_id", dump_only=True, metadata={"type": kind, "pattern": "^[0-9a-f]{24}$"}, **kwargs
        )

    def _serialize(self, value, attr, obj, **kwargs):
        return None if value is None else str(value)
