def statement(journal: list[tuple[str, int]], account: str) -> list[str]:
    lines = [f"{amount:+d}" for name, amount in journal if name == account]
    return ["Statement", *lines]
