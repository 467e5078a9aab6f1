"""A blueprint's parameters: the variables of its template, declared as a subset of JSON Schema
(2020-12), checked when written, and the values of a render checked against them.

Each parameter's own schema is checked by jsonschema-rs with Rust's `regex` engine for `pattern`
(RegexOptions: linear time, so no pattern backtracks; lookaround and backreferences, which need a
backtracking engine, are refused when the parameter is written). Messages about a render's values
say what the schema asks, never what was sent, so that no value (a password) reaches a response
or a log.
"""

import json
import math
import re
import secrets
import string
import time
from functools import lru_cache

import jsonschema_rs
import jwt
import marshmallow as ma

from app.definitions import domains
from app.errors import Invalid
from app.model.fields import Pattern, StrictBoolean
from app.model.schemas import Schema

NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,63}")
TYPES = ("string", "integer", "number", "boolean")
DRAFT = "https://json-schema.org/draft/2020-12/schema"
MAX_PARAMETERS = 256  # as the contract bounds them
MAX_SCHEMA_BYTES = 64 * 1024
MAX_GENERATED = 256
MIN_JWT_SECRET = 32  # bytes: RFC 7518, 3.2, for HS256
MAX_CLAIMS = 20
MAX_LIFETIME = 200 * 365 * 86400  # seconds a generated JWT may be valid for
MAX_LENGTH = 1024 * 1024  # no value is longer than a rendered definition may be
FORMATS = (
    "date",
    "date-time",
    "time",
    "duration",
    "email",
    "hostname",
    "ipv4",
    "ipv6",
    "uri",
    "uri-reference",
    "uuid",
    "regex",
)
NUMERIC = ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf")
TEXTUAL = ("minLength", "maxLength", "pattern", "format", "x-generate", "x-role")
PATTERN_ENGINE = jsonschema_rs.RegexOptions(size_limit=1 << 20, dfa_size_limit=1 << 20)
# A generator pattern's classes, as OpenShift's expression generator spells them
CLASSES = {
    "w": string.ascii_letters + string.digits + "_",
    "d": string.digits,
    "a": string.ascii_letters,
    "A": "~!@#$%^&*()-_+={}[]\\|<,>.?/\"';:`",
}


class JsonNumber(ma.fields.Field):
    """A finite JSON number kept as sent (an integer stays exact: a maximum of 10**18)."""

    def __init__(self, positive=False, **kwargs):
        super().__init__(metadata={"type": "number", **({"exclusiveMinimum": 0} if positive else {})}, **kwargs)
        self.positive = positive

    def _deserialize(self, value, attr, data, **kwargs):
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
            raise ma.ValidationError("Must be a finite number.")
        if self.positive and value <= 0:
            raise ma.ValidationError("Must be greater than 0.")
        return value


def _generator(pattern):
    """[(alphabet, count)] of an x-generate pattern: character classes or single characters,
    each with an optional {count}; ValueError when it is not one."""
    parts, at, total = [], 0, 0
    atom = re.compile(r"\[((?:\\.|[^\]\\])+)\]|\\(.)|([^\[\]{}\\])")
    while at < len(pattern):
        match = atom.match(pattern, at)
        if match is None:
            raise ValueError(f"expected a character class such as [A-Za-z0-9] at position {at + 1}")
        alphabet = _alphabet(match[1]) if match[1] else CLASSES.get(match[2], match[2]) or match[3]
        count = re.compile(r"\{([0-9]{1,3})\}").match(pattern, match.end())
        parts.append((alphabet, int(count[1]) if count else 1))
        total += parts[-1][1]
        at = count.end() if count else match.end()
    if not 1 <= total <= MAX_GENERATED:
        raise ValueError(f"generates {total} characters; 1 to {MAX_GENERATED} are allowed")
    return parts


def _alphabet(members):
    chars = []
    for match in re.finditer(r"(\\.|[^\\])(?:-(\\.|[^\\]))?", members):
        first, last = (bound[-1] if bound else None for bound in match.groups())
        if last is None and match[1][0] == "\\" and first in CLASSES:
            chars += CLASSES[first]
        elif last is None:
            chars.append(first)
        elif ord(last) - ord(first) > 255 or last < first:
            raise ValueError(f"the range {first}-{last} is not 1 to 256 characters")
        else:
            chars += [chr(code) for code in range(ord(first), ord(last) + 1)]
    return "".join(dict.fromkeys(chars))


def generate(spec, values=None):
    """A value of the x-generate `spec`, from the operating system's cryptographic source: a
    generator pattern, or a JWT signed with the value (in `values`) of the parameter it names."""
    if isinstance(spec, dict):
        return _signed(spec["jwt"], values or {})
    return "".join(secrets.choice(alphabet) for alphabet, count in _generator(spec) for _ in range(count))


def _signed(spec, values):
    """An HS256 JWT of `spec`'s claims, issued now (`iat`; `exp` after `expiresIn` seconds), signed
    with the value of parameter `spec["secret"]`; ValueError when that value is too short to sign
    with (RFC 7518 asks for 32 bytes)."""
    secret = str(values.get(spec["secret"], "")).encode()
    if len(secret) < MIN_JWT_SECRET:
        raise ValueError(f"its JWT's secret, {spec['secret']}, is shorter than {MIN_JWT_SECRET} bytes.")
    issued = int(time.time())
    claims = {"iat": issued, **spec.get("claims", {})}
    if "expiresIn" in spec:
        claims["exp"] = issued + spec["expiresIn"]
    return jwt.encode(claims, secret, algorithm="HS256")


def signs_with(schema):
    """The parameter whose value a generated JWT is signed with, or None."""
    spec = schema.get("x-generate")
    return spec["jwt"]["secret"] if isinstance(spec, dict) else None


@lru_cache(maxsize=1024)
def _compiled(schema_json):
    return jsonschema_rs.validator_for(json.loads(schema_json), validate_formats=True, pattern_options=PATTERN_ENGINE)


def validator(schema):
    """A parameter's schema, compiled once per process."""
    return _compiled(json.dumps(schema, sort_keys=True))


def _check_property(schema):
    """What JSON Schema's own rules say of a parameter once its keywords are known: that they fit
    its type, that it can be filled in when written, and that its values pass its own schema."""
    kind = schema["type"]
    errors = {
        key: [f"Applies to the types integer and number, not {kind}."]
        for key in NUMERIC
        if key in schema and kind not in ("integer", "number")
    }
    errors.update(
        {key: [f"Applies to the type string, not {kind}."] for key in TEXTUAL if key in schema and kind != "string"}
    )
    if not {"default", "examples", "x-generate"} & set(schema):
        errors.setdefault("default", []).append("A parameter needs a default, an examples value or x-generate.")
    if errors:
        raise ma.ValidationError(errors)
    found = _refused_values(schema, _validator_of(schema))
    if found:
        raise ma.ValidationError(found)


def _validator_of(schema):
    """The parameter's own schema compiled, or a 422 naming a pattern the engine refuses."""
    try:
        return validator(schema)
    except ValueError:  # jsonschema-rs: the pattern is no regular expression its engine compiles
        raise ma.ValidationError(
            {
                "pattern": [
                    "Not a regular expression of the linear-time engine (no lookaround, "
                    "no backreferences, at most 1 MiB compiled)."
                ]
            }
        ) from None


def _refused_values(schema, check):
    """{keyword: messages} for each value the parameter names (default, examples, const, enum,
    what x-generate makes) that its own schema (an enum's or const's: its type) refuses."""
    of_type = validator({"type": schema["type"]})
    found = {}
    for key, values in (
        ("default", [schema.get("default")]),
        ("examples", schema.get("examples")),
        ("const", [schema.get("const")]),
        ("enum", schema.get("enum")),
    ):
        if key not in schema:
            continue
        rule = of_type if key in ("enum", "const") else check
        messages = [error.message for value in values for error in rule.iter_errors(value)]
        if messages:
            found[key] = messages[:5]
    secret = signs_with(schema)
    sample = generate(schema["x-generate"], {secret: "x" * MIN_JWT_SECRET}) if "x-generate" in schema else None
    if "x-generate" in schema and not check.is_valid(sample):
        found["x-generate"] = ["Generates values that the parameter's own schema refuses."]
    return found


class Claim(ma.fields.Field):
    """A JWT claim's value: a string (at most 1,000 characters), an integer or a boolean."""

    def _deserialize(self, value, attr, data, **kwargs):
        if isinstance(value, str) and len(value) <= 1000 or isinstance(value, bool | int):
            return value
        raise ma.ValidationError("Must be a string of at most 1,000 characters, an integer or a boolean.")


class JwtSchema(Schema):
    """A JWT generated as the platforms sign theirs (HS256), with the value of another parameter."""

    secret = ma.fields.String(required=True, validate=Pattern(NAME.pattern, error="Must be a parameter's name."))
    claims = ma.fields.Dict(
        keys=ma.fields.String(validate=ma.validate.Length(1, 64)),
        values=Claim(),
        validate=ma.validate.Length(max=MAX_CLAIMS),
    )
    expiresIn = ma.fields.Integer(strict=True, validate=ma.validate.Range(1, MAX_LIFETIME))


class Generator(ma.fields.Field):
    """x-generate: a generator pattern, or `{"jwt": {"secret": NAME, "claims": {...}, "expiresIn":
    seconds}}`, a token signed with the value of the parameter NAME (its own form:
    docs/definitions.md, "Parameters: templates filled in")."""

    def _deserialize(self, value, attr, data, **kwargs):
        if isinstance(value, dict) and set(value) == {"jwt"}:
            try:
                return {"jwt": JwtSchema().load(value["jwt"])}
            except ma.ValidationError as exc:
                raise ma.ValidationError({"jwt": exc.messages}) from None
        if not isinstance(value, str) or not 1 <= len(value) <= 256:
            raise ma.ValidationError('A generator pattern of 1-256 characters, or {"jwt": {"secret": NAME}}.')
        try:
            _generator(value)
        except ValueError as exc:
            raise ma.ValidationError(f"Not a generator pattern: {exc}.") from None
        return value


_ParameterFields = Schema.from_dict(
    {
        "type": ma.fields.String(required=True, validate=ma.validate.OneOf(TYPES)),
        "title": ma.fields.String(validate=ma.validate.Length(max=200)),
        "description": ma.fields.String(validate=ma.validate.Length(max=2000)),
        "default": ma.fields.Raw(allow_none=True),
        "examples": ma.fields.List(ma.fields.Raw(allow_none=True), validate=ma.validate.Length(1, 20)),
        "enum": ma.fields.List(ma.fields.Raw(allow_none=True), validate=ma.validate.Length(1, 100)),
        "const": ma.fields.Raw(allow_none=True),
        "minimum": JsonNumber(),
        "maximum": JsonNumber(),
        "exclusiveMinimum": JsonNumber(),
        "exclusiveMaximum": JsonNumber(),
        "multipleOf": JsonNumber(positive=True),
        "minLength": ma.fields.Integer(strict=True, validate=ma.validate.Range(0, MAX_LENGTH)),
        "maxLength": ma.fields.Integer(strict=True, validate=ma.validate.Range(0, MAX_LENGTH)),
        "pattern": ma.fields.String(validate=ma.validate.Length(1, 1000)),
        "format": ma.fields.String(validate=ma.validate.OneOf(FORMATS)),
        "writeOnly": StrictBoolean(metadata={"description": "A secret: never stored with a render, never echoed."}),
        "x-role": ma.fields.String(
            validate=ma.validate.OneOf(domains.ROLES),
            metadata={
                "description": "`domain`: a route's host (or, with `format: uri`, a URL on it); left empty, a render "
                "with a profile that has a `cluster.domain` fills it."
            },
        ),
        "x-generate": Generator(
            metadata={
                "description": "Character classes with counts ([A-Za-z0-9]{24}), or a JWT signed with another "
                'parameter\'s value ({"jwt": {"secret": "NAME", "claims": {...}, "expiresIn": seconds}}): a value '
                "generated when none is given, from a cryptographic source.",
                "oneOf": [
                    {"type": "string", "minLength": 1, "maxLength": 256},
                    {
                        "type": "object",
                        "required": ["jwt"],
                        "additionalProperties": False,
                        "properties": {
                            "jwt": {
                                "type": "object",
                                "required": ["secret"],
                                "additionalProperties": False,
                                "properties": {
                                    "secret": {"type": "string", "pattern": NAME.pattern},
                                    "claims": {"type": "object", "maxProperties": MAX_CLAIMS},
                                    "expiresIn": {"type": "integer", "minimum": 1, "maximum": MAX_LIFETIME},
                                },
                            }
                        },
                    },
                ],
            },
        ),
    },
    name="ParameterFields",  # keys as JSON Schema spells them (x-generate), so it is stored as sent
)


class ParameterSchema(_ParameterFields):
    """One parameter: a string, integer, number or boolean, and the keywords that fit its type."""

    @ma.validates_schema
    def _rules(self, data, **kwargs):
        _check_property(data)


class Properties(ma.fields.Dict):
    """Parameters by name, each with its own schema; errors named by the parameter's name."""

    def __init__(self, **kwargs):
        super().__init__(
            keys=ma.fields.String(),
            values=ma.fields.Nested(ParameterSchema),
            metadata={
                "maxProperties": MAX_PARAMETERS,
                "description": "Parameters by name: 1-64 of A-Z a-z 0-9 _, not starting with a digit.",
            },
            **kwargs,
        )

    def _deserialize(self, value, attr, data, **kwargs):
        if not isinstance(value, dict):
            raise self.make_error("invalid")
        if len(value) > MAX_PARAMETERS:
            raise ma.ValidationError(f"At most {MAX_PARAMETERS} parameters.")
        loaded, errors = {}, {}
        for name, item in value.items():
            if not NAME.fullmatch(name):
                errors[name] = ["Not a parameter name: 1-64 of A-Z a-z 0-9 _, not starting with a digit."]
                continue
            try:
                loaded[name] = self.value_field.schema.load(item)  # one instance: building one costs more
            except ma.ValidationError as exc:
                errors[name] = exc.messages
        if errors:
            raise ma.ValidationError(errors)
        return loaded


class ParametersSchema(Schema):
    """The parameters of a template: a JSON Schema of an object, each property one parameter."""

    schema = ma.fields.String(data_key="$schema", attribute="$schema", validate=ma.validate.Equal(DRAFT))
    type = ma.fields.String(required=True, validate=ma.validate.Equal("object"))
    title = ma.fields.String(validate=ma.validate.Length(max=200))
    description = ma.fields.String(validate=ma.validate.Length(max=2000))
    properties = Properties(load_default=dict)
    required = ma.fields.List(ma.fields.String(), validate=ma.validate.Length(max=MAX_PARAMETERS))
    additionalProperties = StrictBoolean(
        validate=ma.validate.Equal(False), metadata={"description": "false: a render refuses unknown names."}
    )

    @ma.validates_schema
    def _jwt_secrets_are_declared(self, data, **kwargs):
        """A JWT is signed with a declared string parameter's value, not its own nor another JWT's."""
        properties = data.get("properties", {})
        for name, schema in properties.items():
            secret = signs_with(schema)
            if secret is None:
                continue
            signer = properties.get(secret)
            if signer is None or secret == name or signer["type"] != "string" or signs_with(signer):
                raise ma.ValidationError(
                    {
                        name: {
                            "x-generate": [f"Its secret, {secret}, must be another declared string parameter, no JWT."]
                        }
                    },
                    "properties",
                )

    @ma.validates_schema
    def _required_are_declared(self, data, **kwargs):
        required = data.get("required", [])
        unknown = [name for name in required if name not in data.get("properties", {})]
        if unknown or len(set(required)) != len(required):
            raise ma.ValidationError("Must name declared parameters, each once.", "required")


# Values


def defaults(declared):
    """The values a template is checked with when it is written: each parameter's default, else
    its first example, else a generated value."""
    values, signed = {}, []
    for name, schema in declared.get("properties", {}).items():
        if "default" in schema:
            values[name] = schema["default"]
        elif "examples" in schema:
            values[name] = schema["examples"][0]
        elif signs_with(schema):
            signed.append(name)
        else:
            values[name] = generate(schema["x-generate"])
    for name in signed:  # once what it is signed with has its value
        try:
            values[name] = generate(declared["properties"][name]["x-generate"], values)
        except ValueError as exc:
            raise Invalid({f"parameters.properties.{name}.x-generate": [f"At its defaults, {exc}"]}) from None
    return values


_MESSAGES = {
    "type": "must be of type {type}",
    "minimum": "must be at least {minimum}",
    "maximum": "must be at most {maximum}",
    "exclusiveMinimum": "must be greater than {exclusiveMinimum}",
    "exclusiveMaximum": "must be less than {exclusiveMaximum}",
    "multipleOf": "must be a multiple of {multipleOf}",
    "minLength": "must be at least {minLength} characters long",
    "maxLength": "must be at most {maxLength} characters long",
    "pattern": "must match the pattern {pattern}",
    "format": "must be a valid {format}",
    "enum": "must be one of {enum}",
    "const": "must be {const}",
}


def values(declared, given):
    """Every parameter's value for a render: `given` checked (Invalid naming `values.NAME`, with
    what the schema asks, never the value), then each omitted one generated (x-generate), else its
    default. No coercion: "3" is no integer."""
    properties = declared.get("properties", {})
    errors = {f"values.{name}": ["Not a parameter of this blueprint."] for name in given if name not in properties}
    result, signed = {}, []
    for name, schema in properties.items():
        if name in given:
            value = given[name]
            finite = not isinstance(value, float) or math.isfinite(value)  # 1e400 reads as infinity
            problems = {error.schema_path[-1] for error in validator(schema).iter_errors(value)} if finite else {"type"}
            if problems:
                errors[f"values.{name}"] = [_MESSAGES[key].format_map(schema) + "." for key in sorted(problems)]
            result[name] = int(value) if schema["type"] == "integer" and not problems else value
        elif name in declared.get("required", ()):
            errors[f"values.{name}"] = ["Required: this template needs a value for it."]
        elif signs_with(schema):
            signed.append(name)
        elif "x-generate" in schema:
            result[name] = generate(schema["x-generate"])
        elif "default" in schema:
            result[name] = schema["default"]
        else:
            errors[f"values.{name}"] = ["This parameter has no default: give a value."]
    for name in signed:  # once what it is signed with has its value
        if signs_with(properties[name]) in result:
            try:
                result[name] = generate(properties[name]["x-generate"], result)
            except ValueError as exc:
                errors[f"values.{name}"] = [f"Cannot be generated: {exc}"]
    if errors:
        raise Invalid(errors)
    return result


def is_secret(schema):
    """Whether a parameter's value is a secret: `writeOnly`, or generated (a password the service
    made is one, whatever `writeOnly` says)."""
    return bool(schema.get("writeOnly")) or "x-generate" in schema


def secret_names(declared):
    """The names of the parameters whose values are secrets."""
    return {name for name, schema in declared.get("properties", {}).items() if is_secret(schema)}


def shown(secret, used):
    """The values a render answers with: those of the `secret` names as null (they are only in the yml)."""
    return {name: None if name in secret else value for name, value in used.items()}


class Parameters(ma.fields.Nested):
    """A blueprint's `parameters`: at most MAX_SCHEMA_BYTES of JSON, then a ParametersSchema."""

    def __init__(self, **kwargs):
        super().__init__(ParametersSchema, allow_none=True, load_default=None, **kwargs)

    def _deserialize(self, value, attr, data, **kwargs):
        if len(json.dumps(value)) > MAX_SCHEMA_BYTES:
            raise ma.ValidationError(f"Larger than {MAX_SCHEMA_BYTES // 1024} KiB.")
        return super()._deserialize(value, attr, data, **kwargs)
