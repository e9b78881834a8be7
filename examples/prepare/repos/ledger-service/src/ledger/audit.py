# summary: Append-only audit log of who changed which account and when.
import json


def audit_record(actor: str, account: str, action: str, at: str) -> str:
    return json.dumps({"actor": actor, "account": account, "action": action, "at": at}, sort_keys=True)
