# summary: Matching bank statement lines against ledger postings.
# read-when: a bank line stays unmatched at month end
def match(bank_lines: list[tuple[str, int]], postings: list[tuple[str, int]]) -> list[tuple[str, int]]:
    remaining = list(postings)
    unmatched = []
    for line in bank_lines:
        if line in remaining:
            remaining.remove(line)
        else:
            unmatched.append(line)
    return unmatched
