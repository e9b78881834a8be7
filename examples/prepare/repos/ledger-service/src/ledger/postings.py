# summary: Double-entry postings: every journal entry balances to zero.
# read-when: adding a posting type or touching journal integrity
def post(journal: list[tuple[str, int]], entries: list[tuple[str, int]]) -> None:
    if sum(amount for _, amount in entries) != 0:
        raise ValueError("debits and credits differ")
    journal.extend(entries)


def reverse(entries: list[tuple[str, int]]) -> list[tuple[str, int]]:
    return [(account, -amount) for account, amount in entries]
