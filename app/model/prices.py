"""What requirements cost a month: the operator's price sheet (the setting PRICES,
`cpu=N,memoryGiB=N,storageGiB=N,currency=EUR`: per CPU, GiB of memory and GiB of storage), which
a profile's own `prices` override price by price, in the sheet's currency alone. Amounts are
decimals, rounded to cents once, from the summed amounts."""

import functools
import re
from decimal import ROUND_HALF_UP, Decimal, InvalidOperation

# price -> (the requirement it prices, the units of it one price buys)
PRICED = {"cpu": ("cpuMillis", 1000), "memoryGiB": ("memoryBytes", 2**30), "storageGiB": ("storageBytes", 2**30)}
CURRENCY = re.compile(r"[A-Z]{3}")
MOST = Decimal(10) ** 9  # a price per unit and month above it is a typo
CENT = Decimal("0.01")


@functools.cache
def sheet(text):
    """The sheet the setting `text` names ({price: Decimal, "currency": code}; a price it leaves
    out is 0), None when it is empty; ValueError naming what is wrong."""
    if not text.strip():
        return None
    found = {}
    for part in text.split(","):
        name, equals, value = (piece.strip() for piece in part.partition("="))
        if not equals or (name not in PRICED and name != "currency") or name in found:
            raise ValueError(f"PRICES: {part.strip()[:40]!r} is not one of cpu=, memoryGiB=, storageGiB=, currency=.")
        found[name] = value if name == "currency" else price(value, f"PRICES: {name}")
    if not CURRENCY.fullmatch(found.get("currency", "")):
        raise ValueError("PRICES: currency= is a three-letter code, such as EUR.")
    return {name: found.get(name, Decimal(0)) for name in PRICED} | {"currency": found["currency"]}


def price(value, what):
    """A price as written (a number, or its text): a Decimal from 0 to MOST; ValueError else."""
    try:
        amount = Decimal(str(value))
    except InvalidOperation:
        raise ValueError(f"{what} must be a number.") from None
    if not amount.is_finite() or not 0 <= amount <= MOST:
        raise ValueError(f"{what} must be from 0 to {MOST}.")
    return amount


def merged(own, operators):
    """The sheet a profile with `own` prices (None: none) pays by: each of its own prices, the
    operator's for the rest; None without the operator's sheet."""
    if operators is None:
        return None
    return operators | {name: price(value, name) for name, value in (own or {}).items() if value is not None}


def of_profile(profile, setting):
    """The sheet `profile` pays by, under the operator's `setting` (PRICES); None without one."""
    return merged(profile.get("prices"), sheet(setting))


def cost(amounts, prices):
    """`{"monthly", "currency"}` of `amounts` ({requirement: amount, None where unknown}) at
    `prices`; None without prices, or where an amount that has a price is unknown."""
    total = exact(amounts, prices)
    return None if total is None else {"monthly": rounded(total), "currency": prices["currency"]}


def exact(amounts, prices):
    """What `amounts` cost a month at `prices`, unrounded (sums are rounded once); None as `cost`."""
    if prices is None:
        return None
    total = Decimal(0)
    for name, (key, unit) in PRICED.items():
        if prices[name]:
            if amounts.get(key) is None:
                return None
            total += Decimal(amounts[key]) / unit * prices[name]
    return total


def rounded(total):
    """An amount as answered: rounded half up to cents."""
    return float(total.quantize(CENT, rounding=ROUND_HALF_UP))
