# summary: Opening, freezing and closing customer accounts.
# read-when: changing an account's life cycle or its states
from dataclasses import dataclass

STATES = ("open", "frozen", "closed")


@dataclass
class Account:
    number: str
    owner: str
    state: str = "open"


def freeze(account: Account, reason: str) -> Account:
    if account.state == "closed":
        raise ValueError("a closed account cannot be frozen")
    account.state = "frozen"
    return account


def close(account: Account, balance: int) -> Account:
    if balance != 0:
        raise ValueError("only an account with a zero balance can be closed")
    account.state = "closed"
    return account
