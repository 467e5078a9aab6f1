"""The cap grammar of the contract, in one place: the server validates with these patterns and the
OpenAPI document publishes the very same ones.

Digits before the point are limited per unit so that every value the pattern admits fits a BSON
int64 once normalized (999,999 TiB is about 1.1e18 bytes; 2**63 is about 9.2e18): the pattern alone
decides validity. Arithmetic is on Decimal, so "1.5Gi" is exact before it is rounded down.
"""

import math
import re
from decimal import Decimal

MAX_TEXT = 64

# unit -> (bytes, most digits before the point)
_BYTE_UNITS = {"b": (1, 18)}
for _power, _prefix in enumerate("kmgt", start=1):
    _digits = 18 - 3 * _power
    for _suffix, _base in (("", 1000), ("b", 1000), ("i", 1024), ("ib", 1024)):
        _BYTE_UNITS[_prefix + _suffix] = (_base**_power, _digits)
_FRACTION = r"(?:\.[0-9]*)?"


class CapError(ValueError):
    """A cap that does not follow the grammar; the message is safe to show to the client."""


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
            raise CapError(f"Not a valid cap: {text!r}. {self.description}")
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
            raise CapError(f"Longer than {MAX_TEXT} characters.")
        return text
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise CapError("Must be a string or a number.")
    if isinstance(value, float) and not math.isfinite(value):
        raise CapError("Must be a finite number.")
    if value < 0:
        raise CapError("Must not be negative.")
    text = str(int(value)) if isinstance(value, int) or value.is_integer() else format(Decimal(repr(value)), "f")
    if len(text) > MAX_TEXT:
        raise CapError(f"Longer than {MAX_TEXT} characters as a decimal: {text[:20]}...")
    return text


def limits(doc):
    """The normalized values of a stored profile's caps (null where a cap is unset)."""
    return {
        key: (grammar.parse(doc[field]) if doc.get(field) is not None else None)
        for field, (key, grammar) in CAPS.items()
    }
