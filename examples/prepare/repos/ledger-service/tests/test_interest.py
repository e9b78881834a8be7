from ledger.interest import daily_interest


def test_daily_interest_rounds_down():
    assert daily_interest(365_000, 100) == 10
