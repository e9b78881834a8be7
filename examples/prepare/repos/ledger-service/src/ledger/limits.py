# summary: Overdraft limits and the check made before every withdrawal.
def may_withdraw(balance: int, amount: int, overdraft_limit: int) -> bool:
    return balance - amount >= -overdraft_limit
