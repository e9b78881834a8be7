"""Regenerate the bundled example prepared input and its SHA-256 file.

Usage, from the repository root::

    python3 examples/make_example.py

writes ``examples/prepared-input.json`` (made by the project's own test builder,
``tests/builders/prepared.py``) and ``examples/prepared-input.json.sha256`` (one line
``<hex>  prepared-input.json``, as ``sha256sum`` writes it). The bytes are fixed:
nothing here depends on the clock, the environment or a random source, and
``tests/builders/test_prepared.py`` checks that regenerating gives the committed files.

The example (protocol ``pi-context-packer-source-selection-ablation/v2``):

- ``ledger-api`` (Python, 18 source items, metadata coverage 14/18 ≈ 0.78, eligible):
  ten cases; the bundle of ``ledger-api-03`` reports ``cleanup.completed: false``
  (OBS-19) and ``ledger-api-07`` has no bundle at all (``null``, SB-1);
- ``console-web`` (TypeScript, 15 items incl. ``src/i18n/übersetzungen.ts``, a symlink
  and an unreadable generated file, coverage 6/15 = 0.4, below 60 %: its
  ``source_list`` and ``fusion`` arms are ineligible): ten cases, some asked in French
  and German; the receipt of ``console-web-02`` cites a path outside the repository
  (SB-15);
- ``edge-router`` (Go, 13 items, coverage 10/13 ≈ 0.77): ten cases; the backend of
  ``edge-router-05`` timed out (SB-13) and the checkout of ``edge-router-09`` moved
  during execution (SB-8).

Every other bundle is valid, so those five cases are the only ones whose
``structural`` and ``fusion`` arms are unavailable for a bundle reason.
"""

from __future__ import annotations

import hashlib
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from tests.builders.prepared import (  # noqa: E402 - needs the repository root on sys.path first
    case,
    dumps,
    match,
    prepared_input,
    rehash_bundle,
    repository,
    source_list_item,
)

__all__ = ["EXAMPLE", "SHA256_FILE", "build_example", "main"]

EXAMPLE = ROOT / "examples" / "prepared-input.json"
SHA256_FILE = ROOT / "examples" / "prepared-input.json.sha256"

# Each file: (metadataStatus, summary, readWhen, code line cited by evidence (line, snippet)).
# Item options beyond those go in a fifth element (keyword arguments of source_list_item).
_LEDGER_FILES: dict[str, tuple[Any, ...]] = {
    "ledger/accounts/balance.py": (
        "present",
        "Running balance per account with pending holds",
        ["changing balance rounding"],
        (42, "def running_balance(account, until=None):"),
    ),
    "ledger/accounts/models.py": (
        "present",
        "Account and hold models with currency and status",
        [],
        (17, "class Account(Base):"),
    ),
    "ledger/api/routes.py": (
        "present",
        "HTTP routes for accounts, invoices and exports",
        ["adding an endpoint"],
        (88, "@router.post('/invoices/{invoice_id}/void')"),
    ),
    "ledger/api/serializers.py": (
        "present",
        "Request validation and response serializers",
        ["changing request validation"],
        (23, "def parse_amount(raw: str) -> Decimal:"),
    ),
    "ledger/auth/tokens.py": (
        "present",
        "Service token issuing, expiry and signature checks",
        ["rotating signing keys"],
        (61, "def verify_token(token: str, now: datetime) -> Claims:"),
    ),
    "ledger/billing/invoices.py": (
        "present",
        "Invoice drafting, finalization and voiding",
        ["changing invoice states"],
        (134, "def void_invoice(invoice, reason):"),
    ),
    "ledger/billing/tax_rules.py": (
        "present",
        "Tax rule lookup by region and product class",
        ["adding a tax region"],
        (9, "def tax_rate(region, product_class):"),
    ),
    "ledger/currency/conversion.py": (
        "present",
        "Currency conversion with banker's rounding",
        ["changing rounding"],
        (55, "def convert(amount, source, target, rates):"),
    ),
    "ledger/currency/rates_cache.py": (
        "present",
        "Exchange rate cache with staleness window",
        ["changing cache expiry"],
        (31, "def cached_rate(pair, max_age=timedelta(hours=1)):"),
    ),
    "ledger/exports/csv_writer.py": (
        "present",
        "CSV export of journal entries",
        [],
        (12, "def write_journal_csv(entries, stream):"),
    ),
    "ledger/exports/pdf_renderer.py": (
        "present",
        "PDF rendering of invoices and statements",
        ["changing invoice layout"],
        (77, "def render_invoice_pdf(invoice, template):"),
    ),
    "ledger/jobs/nightly_close.py": (
        "present",
        "Nightly close job that freezes the day's journal",
        ["changing close schedule"],
        (40, "def run_nightly_close(day):"),
    ),
    "ledger/jobs/retry_policy.py": (
        "present",
        "Retry and backoff policy for background jobs",
        [],
        (8, "def backoff_delay(attempt: int) -> float:"),
    ),
    "ledger/storage/migrations.py": (
        "invalid",
        None,
        [],
        (5, "def upgrade():"),
        {"metadata_error": "duplicate_summary"},
    ),
    "ledger/storage/postgres.py": (
        "present",
        "Postgres session factory and transaction helpers",
        ["changing isolation level"],
        (26, "def transaction(isolation='repeatable read'):"),
    ),
    "scripts/backfill.sh": ("absent", None, [], (3, "set -euo pipefail")),
    "tests/test_balance.py": ("absent", None, [], (15, "def test_running_balance_with_holds():")),
    "tests/test_invoices.py": ("absent", None, [], (21, "def test_void_invoice_twice():")),
}
_LEDGER_CASES: tuple[tuple[str, tuple[str, ...], int, tuple[str, ...]], ...] = (
    # (question, truth, maxItems, evidence paths)
    (
        "Why does the running balance ignore pending holds?",
        ("ledger/accounts/balance.py", "ledger/accounts/models.py"),
        3,
        ("ledger/accounts/balance.py", "ledger/accounts/models.py", "tests/test_balance.py"),
    ),
    (
        "Where is an invoice voided and which route calls it?",
        ("ledger/billing/invoices.py", "ledger/api/routes.py"),
        3,
        ("ledger/billing/invoices.py", "ledger/api/routes.py", "tests/test_invoices.py"),
    ),
    (
        "Fix rounding of converted amounts in currency conversion.",
        ("ledger/currency/conversion.py",),
        3,
        ("ledger/currency/conversion.py", "ledger/currency/rates_cache.py"),
    ),
    (
        "How long are exchange rates cached before refresh?",
        ("ledger/currency/rates_cache.py",),
        3,
        ("ledger/currency/rates_cache.py",),
    ),
    (
        "Which tax rate applies to a product class in a region?",
        ("ledger/billing/tax_rules.py",),
        3,
        ("ledger/billing/tax_rules.py", "ledger/billing/invoices.py"),
    ),
    (
        "Rotate the signing keys used to verify service tokens.",
        ("ledger/auth/tokens.py",),
        3,
        ("ledger/auth/tokens.py",),
    ),
    (
        "Explain the nightly close job and its retry backoff.",
        ("ledger/jobs/nightly_close.py", "ledger/jobs/retry_policy.py"),
        5,
        ("ledger/jobs/nightly_close.py", "ledger/jobs/retry_policy.py"),
    ),
    (
        "Validate request amounts before an invoice is drafted.",
        ("ledger/api/serializers.py", "ledger/billing/invoices.py"),
        5,
        ("ledger/api/serializers.py", "ledger/billing/invoices.py", "ledger/api/routes.py"),
    ),
    (
        "Export the journal as CSV or render a PDF statement.",
        ("ledger/exports/csv_writer.py", "ledger/exports/pdf_renderer.py"),
        3,
        ("ledger/exports/pdf_renderer.py", "ledger/exports/csv_writer.py"),
    ),
    (
        "Which transaction isolation does the Postgres storage layer use?",
        ("ledger/storage/postgres.py", "ledger/storage/migrations.py"),
        3,
        ("ledger/storage/postgres.py",),
    ),
)

_CONSOLE_FILES: dict[str, tuple[Any, ...]] = {
    "src/app.tsx": (
        "present",
        "Application shell with router and session provider",
        [],
        (14, "export function App() {"),
    ),
    "src/components/Button.tsx": ("absent", None, [], (6, "export function Button(props: ButtonProps) {")),
    "src/components/DataTable.tsx": ("absent", None, [], (48, "export function DataTable<Row>({ rows, columns }) {")),
    "src/components/LoginForm.tsx": (
        "present",
        "Login form with validation messages",
        ["changing login errors"],
        (33, "async function onSubmit(values: Credentials) {"),
    ),
    "src/config/current.ts": (
        "not_applicable",
        None,
        [],
        (1, "export * from './defaults';"),
        {"index_kind": "symlink"},
    ),
    "src/config/defaults.ts": ("absent", None, [], (9, "export const DEFAULT_PAGE_SIZE = 50;")),
    "src/generated/schema.ts": (
        "unreadable",
        None,
        [],
        (1, "export interface Invoice {"),
        {"metadata_error": "ENOENT: generated file missing from checkout"},
    ),
    "src/hooks/useSession.ts": (
        "present",
        "Session hook that refreshes expired tokens",
        ["changing token refresh"],
        (21, "export function useSession(): Session {"),
    ),
    "src/i18n/messages.ts": ("absent", None, [], (4, "export const messages = {")),
    "src/i18n/übersetzungen.ts": (
        "present",
        "Deutsche Übersetzungen der Oberfläche",
        ["Übersetzungen ändern"],
        (2, "export const übersetzungen: Messages = {"),
    ),
    "src/pages/Invoices.tsx": ("absent", None, [], (57, "const columns = useInvoiceColumns(locale);")),
    "src/pages/Settings.tsx": ("absent", None, [], (19, "export default function Settings() {")),
    "src/services/api-client.ts": (
        "present",
        "Fetch wrapper with auth header and JSON errors",
        [],
        (30, "export async function request<T>(path: string): Promise<T> {"),
    ),
    "src/services/retry.ts": ("absent", None, [], (11, "export function withRetry<T>(call: () => Promise<T>) {")),
    "src/state/store.ts": (
        "present",
        "Global store for session, locale and feature flags",
        [],
        (8, "export const store = createStore(reducer);"),
    ),
}
_CONSOLE_CASES: tuple[tuple[str, tuple[str, ...], int, tuple[str, ...]], ...] = (
    (
        "Where does the login form show validation errors?",
        ("src/components/LoginForm.tsx",),
        3,
        ("src/components/LoginForm.tsx", "src/services/api-client.ts"),
    ),
    (
        "Why does the session expire while the console is open?",
        ("src/hooks/useSession.ts", "src/services/api-client.ts"),
        3,
        ("src/hooks/useSession.ts", "src/legacy/session.ts"),
    ),
    (
        "Wo werden die deutschen Übersetzungen geladen?",
        ("src/i18n/übersetzungen.ts", "src/i18n/messages.ts"),
        3,
        ("src/i18n/übersetzungen.ts", "src/i18n/messages.ts"),
    ),
    (
        "Où la table des factures choisit-elle ses colonnes ?",
        ("src/pages/Invoices.tsx", "src/components/DataTable.tsx"),
        3,
        ("src/pages/Invoices.tsx", "src/components/DataTable.tsx"),
    ),
    (
        "Add retry with backoff to failed API requests.",
        ("src/services/retry.ts", "src/services/api-client.ts"),
        3,
        ("src/services/api-client.ts", "src/services/retry.ts"),
    ),
    (
        "Change the default page size of data tables.",
        ("src/config/defaults.ts", "src/config/current.ts"),
        3,
        ("src/config/defaults.ts",),
    ),
    (
        "Which store slice holds feature flags and locale?",
        ("src/state/store.ts",),
        3,
        ("src/state/store.ts", "src/app.tsx"),
    ),
    (
        "Regenerate the invoice schema types used by pages.",
        ("src/generated/schema.ts",),
        3,
        ("src/generated/schema.ts", "src/pages/Invoices.tsx"),
    ),
    (
        "Disable the settings page for read-only users.",
        ("src/pages/Settings.tsx", "src/app.tsx"),
        3,
        ("src/pages/Settings.tsx", "src/app.tsx"),
    ),
    (
        "Restyle the primary button in the login form.",
        ("src/components/Button.tsx", "src/components/LoginForm.tsx"),
        3,
        ("src/components/Button.tsx", "src/components/LoginForm.tsx"),
    ),
)

_ROUTER_FILES: dict[str, tuple[Any, ...]] = {
    "cmd/edge-router/main.go": (
        "present",
        "Process entry point wiring config, proxy and telemetry",
        [],
        (18, "func main() {"),
    ),
    "internal/config/load.go": (
        "present",
        "Loads and validates YAML configuration",
        ["adding a config key"],
        (27, "func Load(path string) (*Config, error) {"),
    ),
    "internal/health/probe.go": (
        "present",
        "Active health probes for backend pools",
        [],
        (40, "func (p *Prober) Probe(ctx context.Context, b *Backend) error {"),
    ),
    "internal/proxy/backend_pool.go": (
        "present",
        "Weighted backend pool with ejection of failing hosts",
        ["changing load balancing"],
        (63, "func (p *Pool) Pick(key string) (*Backend, error) {"),
    ),
    "internal/proxy/handler.go": (
        "present",
        "Reverse proxy handler with header rewriting",
        [],
        (91, "func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {"),
    ),
    "internal/proxy/handler_test.go": ("absent", None, [], (12, "func TestHandlerStripsHopHeaders(t *testing.T) {")),
    "internal/ratelimit/token_bucket.go": (
        "present",
        "Token bucket rate limiter per client key",
        ["changing rate limits"],
        (22, "func (b *Bucket) Allow(now time.Time) bool {"),
    ),
    "internal/routing/matcher.go": (
        "present",
        "Host and path prefix matching of routes",
        [],
        (35, "func (m *Matcher) Match(host, path string) (*Route, bool) {"),
    ),
    "internal/routing/table.go": (
        "present",
        "Route table built from configuration",
        ["changing route order"],
        (50, "func BuildTable(routes []RouteConfig) (*Table, error) {"),
    ),
    "internal/telemetry/metrics.go": (
        "present",
        "Prometheus counters and latency histograms",
        [],
        (16, "var requestLatency = prometheus.NewHistogramVec("),
    ),
    "internal/tls/certs.go": (
        "present",
        "Certificate loading and hot reload",
        ["rotating certificates"],
        (44, "func (s *Store) Reload() error {"),
    ),
    "pkg/headers/forwarded.go": ("absent", None, [], (9, "func AppendForwarded(h http.Header, remote string) {")),
    "scripts/release.sh": ("absent", None, [], (4, "go build -trimpath -o dist/edge-router ./cmd/edge-router")),
}
_ROUTER_CASES: tuple[tuple[str, tuple[str, ...], int, tuple[str, ...]], ...] = (
    (
        "How does the backend pool eject failing hosts?",
        ("internal/proxy/backend_pool.go", "internal/health/probe.go"),
        3,
        ("internal/proxy/backend_pool.go", "internal/health/probe.go"),
    ),
    (
        "Where are hop-by-hop headers stripped by the proxy handler?",
        ("internal/proxy/handler.go", "internal/proxy/handler_test.go"),
        3,
        ("internal/proxy/handler.go", "internal/proxy/handler_test.go"),
    ),
    (
        "Raise the rate limit for one client key.",
        ("internal/ratelimit/token_bucket.go",),
        3,
        ("internal/ratelimit/token_bucket.go", "internal/config/load.go"),
    ),
    (
        "Why does a longer path prefix not win route matching?",
        ("internal/routing/matcher.go", "internal/routing/table.go"),
        3,
        ("internal/routing/matcher.go", "internal/routing/table.go"),
    ),
    (
        "Reload TLS certificates without restarting the router.",
        ("internal/tls/certs.go",),
        3,
        ("internal/tls/certs.go", "cmd/edge-router/main.go"),
    ),
    (
        "Add a latency histogram label for the route name.",
        ("internal/telemetry/metrics.go",),
        3,
        ("internal/telemetry/metrics.go", "internal/proxy/handler.go"),
    ),
    ("Validate unknown keys in the YAML configuration.", ("internal/config/load.go",), 3, ("internal/config/load.go",)),
    (
        "Append the Forwarded header with the client address.",
        ("pkg/headers/forwarded.go", "internal/proxy/handler.go"),
        3,
        ("pkg/headers/forwarded.go", "internal/proxy/handler.go"),
    ),
    (
        "Wire telemetry and config loading at process start.",
        ("cmd/edge-router/main.go",),
        3,
        ("cmd/edge-router/main.go", "internal/telemetry/metrics.go"),
    ),
    ("Build a release binary with trimmed paths.", ("scripts/release.sh",), 3, ("scripts/release.sh",)),
)


def _items(files: dict[str, tuple[Any, ...]]) -> list[dict[str, Any]]:
    items = []
    for path in sorted(files):  # str order is UTF-8 byte order (SPEC §9.5)
        status, summary, read_when, _, *options = files[path]
        items.append(source_list_item(path, status, summary, read_when, **(options[0] if options else {})))
    return items


def _cases(
    repo: dict[str, Any],
    files: dict[str, tuple[Any, ...]],
    specs: tuple[tuple[str, tuple[str, ...], int, tuple[str, ...]], ...],
    **bundle_options: Any,
) -> list[dict[str, Any]]:
    cases = []
    for number, (question, truth, max_items, evidence_paths) in enumerate(specs, 1):
        evidence = []
        for path in evidence_paths:
            line, snippet = files[path][3] if path in files else (1, "export {};")
            evidence.append(match(path, line, snippet))
        case_id = f"{repo['id']}-{number:02d}"
        cases.append(case(repo, case_id, question, truth, max_items, evidence=evidence, **bundle_options))
    return cases


def build_example() -> dict[str, Any]:
    """Build the example prepared input (three repositories, thirty cases)."""
    ledger = repository(
        "ledger-api", "3f9c2b7e41d08a5c6e1f2a9b8d7c6e5f4a3b2c1d", _items(_LEDGER_FILES),
        staleness_sampled=["ledger/accounts/balance.py", "ledger/billing/invoices.py", "ledger/currency/conversion.py"],
        stale=["ledger/currency/conversion.py"],
        extra_tracked=["README.md", "pyproject.toml", "tests/fixtures/journal.csv"],
        method="reviewer compared three summaries with the code at the pinned commit",
    )  # fmt: skip
    console = repository(
        "console-web", "9a1e4d7c2b5f8e3a6d9c0b1f4e7a2d5c8b3e6f90", _items(_CONSOLE_FILES),
        staleness_sampled=["src/hooks/useSession.ts", "src/i18n/übersetzungen.ts"],
        extra_tracked=["README.md", "package.json", "src/styles/theme.css"],
        method="reviewer compared two summaries with the code at the pinned commit",
    )  # fmt: skip
    router = repository(
        "edge-router", "c47d1e9a3b6f2c8e5d0a7b4f1e8c3d6a9b2f5e07", _items(_ROUTER_FILES),
        staleness_sampled=["internal/proxy/backend_pool.go", "internal/tls/certs.go"],
        stale=["internal/tls/certs.go"],
        extra_tracked=["README.md", "config/example.yaml", "go.mod", "go.sum"],
    )  # fmt: skip
    ledger_cases = _cases(ledger, _LEDGER_FILES, _LEDGER_CASES, language="Python",
                          pattern="def $NAME($$$ARGS):", path_seeds=("ledger",))  # fmt: skip
    console_cases = _cases(console, _CONSOLE_FILES, _CONSOLE_CASES, language="TypeScript",
                           pattern="function $NAME($$$ARGS)", path_seeds=("src",))  # fmt: skip
    router_cases = _cases(router, _ROUTER_FILES, _ROUTER_CASES, language="Go",
                          pattern="func $NAME($$$ARGS)", path_seeds=("internal", "cmd"))  # fmt: skip

    # ledger-api-03: the exporter's temporary roots were not cleaned up (OBS-19).
    bundle = ledger_cases[2]["structuralEvidence"]
    bundle["executionObservation"]["cleanup"]["completed"] = False
    rehash_bundle(bundle)
    # ledger-api-07: no structural evidence was retained for this case (SB-1).
    ledger_cases[6]["structuralEvidence"] = None
    # edge-router-05: the backend timed out and returned nothing (SB-13).
    receipt = router_cases[4]["structuralEvidence"]["receipt"]
    receipt["backend"]["outcome"].update(status="timed_out", exitCode=None, message="backend timed out after 30000 ms")
    receipt["evidence"] = []
    receipt["summary"].update(returnedCount=0, totalObservedCount=0, evidenceBytes=0, complete=False)
    rehash_bundle(router_cases[4]["structuralEvidence"])
    # edge-router-09: the checkout moved while the exporter ran (SB-8).
    receipt = router_cases[8]["structuralEvidence"]["receipt"]
    receipt["repository"].update(observedFingerprint="git:" + "d" * 40, stableAcrossExecution=False)
    receipt["summary"]["complete"] = False
    rehash_bundle(router_cases[8]["structuralEvidence"])

    return prepared_input([ledger, console, router], [*ledger_cases, *console_cases, *router_cases])


def main() -> int:
    """Write the example and its ``sha256sum`` line; print the line."""
    data = dumps(build_example())
    line = f"{hashlib.sha256(data).hexdigest()}  {EXAMPLE.name}\n"
    EXAMPLE.write_bytes(data)
    SHA256_FILE.write_text(line, encoding="utf-8")
    sys.stdout.write(line)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
