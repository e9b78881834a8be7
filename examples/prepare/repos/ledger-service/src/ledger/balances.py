# summary: Running balances per account and currency, read from the journal.
def balance(journal: list[tuple[str, int]], account: str) -> int:
    return sum(amount for name, amount in journal if name == account)


def balances(journal: list[tuple[str, int]]) -> dict[str, int]:
    totals: dict[str, int] = {}
    for name, amount in journal:
        totals[name] = totals.get(name, 0) + amount
    return totals
