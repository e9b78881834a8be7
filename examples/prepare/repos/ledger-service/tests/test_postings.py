from ledger.postings import post, reverse


def test_an_unbalanced_entry_is_refused():
    journal = []
    try:
        post(journal, [("cash", 100), ("sales", -90)])
    except ValueError:
        pass
    assert journal == []


def test_reverse_negates():
    assert reverse([("cash", 5)]) == [("cash", -5)]
