# summary: CSV export of postings for the accounting team.
import csv
import io


def export_csv(journal: list[tuple[str, int]]) -> str:
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(["account", "amount"])
    writer.writerows(journal)
    return out.getvalue()
