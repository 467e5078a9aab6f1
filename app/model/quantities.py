"""Quantities, in one place: the profile cap grammar of the contract (the server validates with
these patterns and the OpenAPI document publishes the very same ones), and the quantities a
blueprint's definition declares: Compose's (Docker's byte units, powers of 1024; CPUs as a
decimal) and Kubernetes' (its resource.Quantity grammar), each rounded up to a byte or a
millicore, and each bounded to a signed 64-bit integer.

Digits before the point are limited per unit so that every value the pattern admits fits a BSON
int64 once normalized (999,999 TiB is about 1.1e18 bytes; 2**63 is about 9.2e18): the pattern alone
decides validity. Arithmetic is on Decimal, so "1.5Gi" is exact before it is rounded down.
"""

import functools
import math
import re
from decimal import ROUND_CEILING, Decimal, InvalidOperation

MAX_TEXT = 64
INT64 = 2**63 - 1

# unit -> (bytes, most digits before the point)
_BYTE_UNITS = {"b": (1, 18)}
for _power, _prefix in enumerate("kmgt", start=1):
    _digits = 18 - 3 * _power
    for _suffix, _base in (("", 1000), ("b", 1000), ("i", 1024), ("ib", 1024)):
        _BYTE_UNITS[_prefix + _suffix] = (_base**_power, _digits)
_FRACTION = r"(?:\.[0-9]*)?"


class QuantityError(ValueError):
    """A quantity that does not follow its grammar; the message is safe to show to the client."""


class TooLarge(QuantityError):
    """An amount of the grammar past what a 64-bit integer holds."""


def _any_case(unit):
    """An ECMA-compatible pattern for `unit` in any case (OpenAPI patterns take no flags)."""
    return "".join(f"[{c.lower()}{c.upper()}]" for c in unit)


def _number(digits):
    return rf"(?:[0-9]{{1,{digits}}}{_FRACTION}|\.[0-9]+)"


def _byte_pattern(bare_unit):
    by_digits = {}
    for unit, (_, digits) in _BYTE_UNITS.items():
        by_digits.setdefault(digits, []).append(_any_case(unit))
    branches = [
        rf"{_number(d)} ?(?:{'|'.join(sorted(units, key=len, reverse=True))})" for d, units in sorted(by_digits.items())
    ]
    branches.append(_number(_BYTE_UNITS[bare_unit][1]))
    return "^(?:" + "|".join(branches) + ")$"


class Grammar:
    """One kind of cap: its pattern, what it means, and how to normalize it."""

    def __init__(self, pattern, description, normalize, json_maximum, json_multiple=None):
        self.pattern = pattern
        self.regex = re.compile(pattern)
        self.description = description
        self.normalize = normalize
        self.json_maximum = json_maximum  # exclusive bound of the JSON-number form
        self.json_multiple = json_multiple

    def parse(self, text):
        if not self.regex.fullmatch(text):
            raise QuantityError(f"Not a valid cap: {text!r}. {self.description}")
        return self.normalize(text)


def _split(text):
    match = re.fullmatch(r"([0-9.]+) ?([A-Za-z]*)", text)
    return Decimal(match[1]), match[2].lower()


def _bytes(bare_unit):
    def normalize(text):
        number, unit = _split(text)
        return int(number * _BYTE_UNITS[unit or bare_unit][0])  # int() of a positive Decimal rounds down

    return normalize


def _cpu_millis(text):
    number, unit = _split(text)
    return int(number if unit else number * 1000)


MEMORY = Grammar(
    _byte_pattern("mi"),
    "A byte quantity: a number with an optional unit B, K, KB, Ki, KiB ... "
    "T, TB, Ti, TiB (any case); a bare number means MiB.",
    _bytes("mi"),
    10**12,
)
STORAGE = Grammar(
    _byte_pattern("gi"),
    "A byte quantity: a number with an optional unit B, K, KB, Ki, KiB ... "
    "T, TB, Ti, TiB (any case); a bare number means GiB.",
    _bytes("gi"),
    10**9,
)
CPU = Grammar(
    r"^(?:(?:[0-9]{1,15}(?:\.[0-9]{0,3})?|\.[0-9]{1,3})|[0-9]{1,18} ?m)$",
    'CPUs with at most three decimals ("0.5"), or whole millicores ("500m").',
    _cpu_millis,
    10**15,
    json_multiple=0.001,
)
CONTAINERS = Grammar(r"^[0-9]{1,18}$", "A non-negative integer.", int, 10**18, json_multiple=1)

# field name -> (name in `limits`, grammar)
CAPS = {
    "memoryCap": ("memoryBytes", MEMORY),
    "cpuCap": ("cpuMillis", CPU),
    "containerCap": ("containers", CONTAINERS),
    "storageCap": ("storageBytes", STORAGE),
}


def from_json(value):
    """The stored text of a cap sent as a JSON string or number.

    Integers become "2", other numbers their shortest round-trip decimal form ("0.5", never "5e-1").
    """
    if isinstance(value, str):
        text = value.strip()
        if len(text) > MAX_TEXT:
            raise QuantityError(f"Longer than {MAX_TEXT} characters.")
        return text
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise QuantityError("Must be a string or a number.")
    if isinstance(value, float) and not math.isfinite(value):
        raise QuantityError("Must be a finite number.")
    if value < 0:
        raise QuantityError("Must not be negative.")
    text = str(int(value)) if isinstance(value, int) or value.is_integer() else format(Decimal(repr(value)), "f")
    if len(text) > MAX_TEXT:
        raise QuantityError(f"Longer than {MAX_TEXT} characters as a decimal: {text[:20]}...")
    return text


# what one container declares, in a profile's `containerDefaults` and `containerMax`:
# member -> (name in `limits`, grammar)
PER_CONTAINER = {"memory": ("memoryBytes", MEMORY), "cpu": ("cpuMillis", CPU)}


def limits(doc):
    """The normalized values of a stored profile's caps (null where a cap is unset), and of its
    container defaults and maximum (each member null where unset)."""
    normalized = {
        key: (grammar.parse(doc[field]) if doc.get(field) is not None else None)
        for field, (key, grammar) in CAPS.items()
    }
    for field in ("containerDefaults", "containerMax"):
        given = doc.get(field) or {}
        normalized[field] = {
            key: (grammar.parse(given[member]) if given.get(member) is not None else None)
            for member, (key, grammar) in PER_CONTAINER.items()
        }
    return normalized


# Quantities in blueprint definitions


def _decimal(value, what, negative=False):
    """A YAML scalar read as a number (non-negative unless `negative`): an int, a finite float or
    a numeric string."""
    if isinstance(value, bool) or not isinstance(value, (int, float, str)):
        raise QuantityError(f"{what} must be a number or a string, not {type(value).__name__}.")
    try:
        number = Decimal(value) if not isinstance(value, float) else Decimal(repr(value))
    except InvalidOperation:
        raise QuantityError(f"{what} is not a number: {str(value)[:40]!r}.") from None
    if not number.is_finite():
        raise QuantityError(f"{what} must be finite.")
    if number < 0 and not negative:
        raise QuantityError(f"{what} must not be negative.")
    return number


def _whole(number, what):
    """`number` rounded up, if it fits a signed 64-bit integer (checked first: `1e999999` must
    not become an integer of a million digits)."""
    if number > INT64:
        raise TooLarge(f"{what} is larger than a 64-bit integer.")
    return int(number.to_integral_value(rounding=ROUND_CEILING))


# Compose's amounts, as Docker Compose v2.40 reads them: Go's decimal float syntax, sizes in
# go-units' grammar (a suffix of k, m, g, t or p, then nothing, b or ib, in any case; a space may
# stand before it), truncated to a whole byte (docs/definitions.md).
_GO_FLOAT = re.compile(r"[+-]?(?:[0-9][0-9_]*(?:\.[0-9_]*)?|\.[0-9][0-9_]*)(?:[eE][+-]?[0-9]+)?")
_SIZE = re.compile(r"(.*[0-9. ])([^0-9. ]*)", re.DOTALL)
_DOCKER_POWERS = {"k": 1, "m": 2, "g": 3, "t": 4, "p": 5}
# What nearly every file writes (`512m`, `1GiB`, `0.5`): read exactly without a float or a Decimal
_PLAIN_BYTES = re.compile(r"([0-9]{1,15})(?:([kmgtp])(?:b|ib)?|b)?", re.IGNORECASE)
_PLAIN_CORES = re.compile(r"([0-9]{1,12})(?:\.([0-9]{0,3}))?")


def go_float(text, what):
    if not _GO_FLOAT.fullmatch(text) or "__" in text:
        raise QuantityError(f"{what} is not a number: {text[:40]!r}.")
    number = float(text.replace("_", ""))
    if not math.isfinite(number):
        raise TooLarge(f"{what} is larger than a 64-bit integer.")
    return number


def compose_bytes(value, what="the size"):
    """Docker's byte quantity (512m, 1.5g, 2GiB, 1 k, or a number of bytes), None where Compose
    sets no limit: zero, a negative number of bytes (-1 is Docker's "unlimited"), or a YAML float,
    which Compose drops."""
    if isinstance(value, bool) or not isinstance(value, (int, float, str)):
        raise QuantityError(f"{what} must be a number or a string, not {type(value).__name__}.")
    if isinstance(value, float):
        return None
    if isinstance(value, int):
        if value > INT64:
            raise TooLarge(f"{what} is larger than a 64-bit integer.")
        return value if value > 0 else None
    plain = _PLAIN_BYTES.fullmatch(value)
    if plain and (total := int(plain[1]) * 1024 ** _DOCKER_POWERS.get((plain[2] or "").lower(), 0)) < 2**63:
        return total or None
    return _bytes_of_text(value, what)


def _bytes_of_text(value, what):
    """compose_bytes of any text, by go-units' grammar."""
    split = _SIZE.fullmatch(value)  # the number ends at the last digit, dot or space
    number, suffix = split.groups() if split else ("", value)
    size, unit = go_float(number.removesuffix(" "), what) if number else -1, suffix.lower()  # `1 g`: a space between
    if size < 0:
        raise QuantityError(f"{what} is not a byte quantity (such as 512m or 1.5g): {value[:40]!r}.")
    if unit not in ("", "b") and (unit[:1] not in _DOCKER_POWERS or unit[1:] not in ("", "b", "ib")):
        raise QuantityError(f"{what} has a unit Docker does not know (b, k, kb, kib, m ... p): {suffix[:10]!r}.")
    total = size * 1024 ** _DOCKER_POWERS.get(unit[:1], 0)
    if total >= 2**63:
        raise TooLarge(f"{what} is larger than a 64-bit integer.")
    return int(total) or None


def compose_millis(value, what="cpus"):
    """Compose's CPUs, a decimal number of cores, in millicores rounded up; None where Compose sets
    no limit (zero or less)."""
    if isinstance(value, bool) or not isinstance(value, (int, float, str)):
        raise QuantityError(f"{what} must be a number or a string, not {type(value).__name__}.")
    plain = _PLAIN_CORES.fullmatch(value if isinstance(value, str) else repr(value))  # as Decimal(repr(a float))
    if plain:
        return int(plain[1]) * 1000 + int((plain[2] or "").ljust(3, "0")) or None
    return _millis_of_number(value, what)


def _millis_of_number(value, what):
    """compose_millis of any number or text, by Go's float grammar and a Decimal."""
    number = _decimal(go_float(value, what) if isinstance(value, str) else value, what, negative=True)
    return _whole(number * 1000, what) if number > 0 else None


_GO_DURATION = re.compile(r"[+-]?(?:0|(?:(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:ns|us|µs|μs|ms|s|m|h|d|w))+)")


_DURATION_PART = re.compile(r"([0-9]*\.?[0-9]+)(ns|us|µs|μs|ms|s|m|h|d|w)")
_DURATION_UNITS = {
    "ns": 1e-9,
    "us": 1e-6,
    "µs": 1e-6,
    "μs": 1e-6,
    "ms": 1e-3,
    "s": 1,
    "m": 60,
    "h": 3600,
    "d": 86400,
    "w": 7 * 86400,
}


def compose_duration(value, what="the duration"):
    """A duration as Compose reads one (10s, 1m30s, 1.5h, 1d, 0), in seconds."""
    if not isinstance(value, str) or not _GO_DURATION.fullmatch(value):
        raise QuantityError(f"{what} is not a duration with its unit (such as 10s or 1m30s): {str(value)[:40]!r}.")
    seconds = sum(float(number) * _DURATION_UNITS[unit] for number, unit in _DURATION_PART.findall(value))
    return -seconds if value.startswith("-") else seconds


def compose_count(value, what):
    """A number of containers as Compose reads it: an integer, a float that is one (YAML's 2.0),
    or a string of digits (what a variable gives: `replicas: ${REPLICAS:-3}`)."""
    if type(value) is int and 0 <= value <= INT64:  # nearly every count: read every write, first
        return value
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if isinstance(value, str) and re.fullmatch(r"[+-]?[0-9]{1,18}", value):
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, int):
        raise QuantityError(f"{what} must be a whole number of containers, not {str(value)[:40]!r}.")
    if value < 0:
        raise QuantityError(f"{what} must be greater than or equal to 0.")
    if value > INT64:
        raise TooLarge(f"{what} is larger than a 64-bit integer.")
    return value


def compose_unsigned(value, what="the number"):
    """A number Compose decodes into an unsigned integer (retries, parallelism, max_attempts): not
    below 0, a float truncated; None for text (cast to a number first, or reported there)."""
    if isinstance(value, str):
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value != value:
        raise QuantityError(f"{what} must be a whole number, not {str(value)[:40]!r}.")
    if value < 0:
        raise QuantityError(f"{what} must be greater than or equal to 0.")
    if value >= 2**64:
        raise TooLarge(f"{what} is larger than a 64-bit integer.")
    return int(value)


_K8S = re.compile(r"([+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+))(Ki|Mi|Gi|Ti|Pi|Ei|n|u|m|k|M|G|T|P|E|[eE][+-]?[0-9]{1,6})?")
_K8S_BINARY = {"Ki": 10, "Mi": 20, "Gi": 30, "Ti": 40, "Pi": 50, "Ei": 60}
_K8S_DECIMAL = {"n": -9, "u": -6, "m": -3, "": 0, "k": 3, "M": 6, "G": 9, "T": 12, "P": 15, "E": 18}


def kubernetes_quantity(value, what):
    """A Kubernetes resource.Quantity (1.5Gi, 500m, 250000n, 100u, 2, 1e3, 128974848) as a Decimal."""
    if isinstance(value, str):
        match = _K8S.fullmatch(value.strip())
        if not match:
            raise QuantityError(f"{what} is not a Kubernetes quantity (such as 512Mi or 500m): {value[:40]!r}.")
        number, suffix = _decimal(match[1], what), match[2] or ""
        if suffix in _K8S_BINARY:
            return number * 2 ** _K8S_BINARY[suffix]
        exponent = _K8S_DECIMAL[suffix] if suffix in _K8S_DECIMAL else int(suffix[1:])
        return number.scaleb(exponent)
    return _decimal(value, what)


def kubernetes_bytes(value, what="memory"):
    return _kubernetes_amount(value, what, 1)


def kubernetes_millis(value, what="cpu"):
    return _kubernetes_amount(value, what, 1000)


def _kubernetes_amount(value, what, scale):
    if isinstance(value, str):
        return _text_amount(value, what, scale)
    return _whole(kubernetes_quantity(value, what) * scale, what)


@functools.lru_cache(maxsize=1024)
def _text_amount(text, what, scale):
    """A stream writes the same few amounts again and again (`256Mi`, `250m`): each text is read once."""
    return _whole(kubernetes_quantity(text, what) * scale, what)


# Amounts written out: in a fit's words, in a rendered definition, in an export


def binary_text(count, units=("", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei")):
    """Bytes in the largest power-of-1024 unit that holds them exactly (`units`: a format's names
    for 1, 1024, 1024**2...): `268435456` is `256Mi`, `1000` is `1000`."""
    power = 0
    while count and count % 1024 == 0 and power < len(units) - 1:
        count //= 1024
        power += 1
    return f"{count}{units[power]}"


def engine_bytes(value):
    """A size Compose passes to the Docker engine as written (`storage_opt.size`): Compose takes
    any text there, so text that is no size declares none (None), as if it were absent; a size
    past 64 bits is refused, as every amount is."""
    try:
        return compose_bytes(value)
    except TooLarge:
        raise
    except QuantityError:
        if isinstance(value, str):
            return None
        raise


def compose_bytes_text(count):
    """Bytes as Compose writes them (Docker's units: k, m, g are powers of 1024)."""
    return binary_text(count, ("b", "k", "m", "g"))


def cpus_text(millis):
    """Millicores as a decimal number of CPUs, as Compose's `cpus` takes it: `250` is `0.25`."""
    return format(Decimal(millis) / 1000, "f").rstrip("0").rstrip(".") if millis % 1000 else str(millis // 1000)


def millis_text(millis):
    """Millicores as Kubernetes writes them: `250m`, `2` for 2000."""
    return str(millis // 1000) if millis % 1000 == 0 else f"{millis}m"


def cap_text(grammar, amount):
    """A normalized amount (bytes, millicores) as the text of a cap of `grammar`, in its own units
    (`256Mi`, `1000B`, `250m`); QuantityError where the grammar cannot hold it."""
    text = millis_text(amount) if grammar is CPU else binary_text(amount, ("B", "Ki", "Mi", "Gi", "Ti"))
    grammar.parse(text)
    return text


def spoken(key, amount):
    """An amount of `limits` (its key) as a person reads it: `1.5 GiB`, `0.25 CPU`, `3 containers`
    (CPU always in cores, so that amounts side by side read alike)."""
    if key in ("memoryBytes", "storageBytes"):
        value, unit = amount, "B"
        for next_unit in ("KiB", "MiB", "GiB", "TiB", "PiB", "EiB"):
            if abs(value) < 1024:
                break
            value, unit = value / 1024, next_unit
        return f"{value:.4g} {unit}"
    if key == "cpuMillis":
        return f"{amount / 1000:g} CPU{'' if abs(amount) <= 1000 else 's'}"
    return f"{amount} container{'' if amount == 1 else 's'}"
