"""The cap grammar of the contract: one parser for every cap, used for validation and for `limits`.

Arithmetic is done on Decimal so that "1.5Gi" is exact before it is rounded down to bytes.
"""
import math
import re
from decimal import Decimal

MAX_TEXT = 64
MAX_VALUE = 2**63 - 1  # every normalized value must fit a BSON int64

_NUMBER = r"(?P<num>\d+(?:\.\d*)?|\.\d+)"
_QUANTITY = re.compile(_NUMBER + r" ?(?P<unit>[A-Za-z]*)")

_BYTE_UNITS = {"b": 1}
for _power, _prefix in enumerate("kmgt", start=1):
    _BYTE_UNITS[_prefix] = _BYTE_UNITS[_prefix + "b"] = 1000**_power
    _BYTE_UNITS[_prefix + "i"] = _BYTE_UNITS[_prefix + "ib"] = 1024**_power


class CapError(ValueError):
    """A cap that does not follow the grammar; the message is safe to show to the client."""


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
    if isinstance(value, int) or value.is_integer():
        return str(int(value))
    return format(Decimal(repr(value)), "f")


def _split(text):
    match = _QUANTITY.fullmatch(text)
    if not match:
        raise CapError(f"Not a quantity: {text!r}.")
    return Decimal(match["num"]), match["unit"]


def _checked(value):
    if value > MAX_VALUE:
        raise CapError("Too large.")
    return value


def _bytes(text, bare_unit):
    number, unit = _split(text)
    factor = _BYTE_UNITS.get((unit or bare_unit).lower())
    if factor is None:
        raise CapError(f"Unknown unit {unit!r}; use B, K, KB, Ki, KiB ... T, TB, Ti, TiB.")
    return _checked(int(number * factor))  # int() of a positive Decimal rounds down


def memory_bytes(text):
    """A bare number means MiB."""
    return _bytes(text, "Mi")


def storage_bytes(text):
    """A bare number means GiB."""
    return _bytes(text, "Gi")


def cpu_millis(text):
    """CPUs ("0.5") or millicores ("500m"); anything finer than one millicore is refused."""
    number, unit = _split(text)
    if unit not in ("", "m"):
        raise CapError(f"Unknown unit {unit!r}; use a number of CPUs or millicores such as '500m'.")
    millis = number if unit else number * 1000
    if millis != millis.to_integral_value():
        raise CapError("Finer than one millicore.")
    return _checked(int(millis))


def containers(text):
    if not text.isascii() or not text.isdigit():
        raise CapError(f"Not a non-negative integer: {text!r}.")
    return _checked(int(text))


# field name -> (name in `limits`, parser)
CAPS = {
    "memoryCap": ("memoryBytes", memory_bytes),
    "cpuCap": ("cpuMillis", cpu_millis),
    "containerCap": ("containers", containers),
    "storageCap": ("storageBytes", storage_bytes),
}


def limits(doc):
    """The normalized values of a stored profile's caps (null where a cap is unset)."""
    return {key: (parse(doc[field]) if doc.get(field) is not None else None)
            for field, (key, parse) in CAPS.items()}
