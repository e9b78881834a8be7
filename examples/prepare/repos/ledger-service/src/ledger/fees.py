# summary: Monthly account fees and the rules that waive them.
MONTHLY_FEE = 450


def monthly_fee(average_balance: int, is_student: bool) -> int:
    if is_student or average_balance >= 250_000:
        return 0  # waived
    return MONTHLY_FEE
