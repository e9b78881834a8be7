# summary: Currency codes, minor units and the rounding rule (half to even).
from decimal import ROUND_HALF_EVEN, Decimal

MINOR_UNITS = {"EUR": 2, "JPY": 0, "KWD": 3}


def to_minor(amount: Decimal, currency: str) -> int:
    exponent = Decimal(1).scaleb(-MINOR_UNITS[currency])
    return int(amount.quantize(exponent, rounding=ROUND_HALF_EVEN).scaleb(MINOR_UNITS[currency]))
