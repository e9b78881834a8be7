# summary: Daily interest accrual on savings accounts (actual/365).
def daily_interest(balance: int, annual_rate_bp: int) -> int:
    return balance * annual_rate_bp // (365 * 10_000)


def accrue(balances: dict[str, int], rate_bp: int) -> dict[str, int]:
    return {account: daily_interest(amount, rate_bp) for account, amount in balances.items() if amount > 0}
