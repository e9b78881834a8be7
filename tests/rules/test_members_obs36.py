"""OBS-36, every value of the transcript compared with the observation and the raw evidence (issue 25).

OBS-36: the parsed transcript's ``command`` is canonically equal to the
observation's ``command``; its ``commandDigest`` ≡ the observation's
``commandDigest``; and each of ``requestSha256``, ``receiptSha256``,
``stdoutSha256``, ``stderrSha256``, ``processSha256``, ``stateSha256`` ≡ the
raw member of the same name. Each member is changed alone below (the
transcript's own digest and the observation digest re-sealed, so OBS-34 and
OBS-3 hold), with the whole failure text asserted; a value copied from
another raw member or from ``requestArtifact`` is not the same-named one.

Spec: SPEC.md §4.11 (OBS-34 … OBS-37), §3.4, §4.12 step 6, §9.4.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from ablation.canonical import canonical_digest, raw_digest
from tests.builders.prepared import raw_text
from tests.rules.members_support import OB, RAW, bundle, bundle_failure, reseal, validate

WHERE = f"{RAW}/transcriptJson -> "
DIGESTS = ("requestSha256", "receiptSha256", "stdoutSha256", "stderrSha256", "processSha256", "stateSha256")
OTHER = raw_digest("another text")


def _with_transcript(change: Any, *, text: Any = raw_text) -> dict[str, Any]:
    """The bundle whose transcript is ``change``d (a function of the parsed transcript and the bundle)."""
    b = bundle()
    raw = b[OB]["rawEvidence"]
    transcript = json.loads(raw["transcriptJson"])
    change(transcript, b)
    raw["transcriptJson"] = text(transcript)
    return reseal(b, keep={"transcriptJson"})


def _set(name: str, value: object) -> Any:
    return lambda transcript, b: transcript.__setitem__(name, value)


@pytest.mark.parametrize("name", DIGESTS)
def test_each_digest_is_the_raw_member_of_the_same_name(name: str) -> None:
    """Each of the six digests alone differs from the raw member of its name."""
    b = _with_transcript(_set(name, OTHER))
    stated = b[OB]["rawEvidence"][name]
    assert bundle_failure(b) == f"OBS-36 at {WHERE}/{name}: expected rawEvidence.{name} {stated!r}; found {OTHER!r}"


@pytest.mark.parametrize("name", DIGESTS)
def test_each_digest_is_not_another_raw_members(name: str) -> None:
    """The value of another raw digest member (stderr's, or state's for stderr) is not this member's."""
    other_name = "stateSha256" if name == "stderrSha256" else "stderrSha256"
    b = bundle()
    value = b[OB]["rawEvidence"][other_name]
    b = _with_transcript(_set(name, value))
    stated = b[OB]["rawEvidence"][name]
    assert stated != value
    assert bundle_failure(b) == f"OBS-36 at {WHERE}/{name}: expected rawEvidence.{name} {stated!r}; found {value!r}"


@pytest.mark.parametrize(
    ("value", "shown"),
    [(None, "null"), ([], "an array of 0 elements"), ("SHA256:" + "0" * 64, "'SHA256:" + "0" * 64 + "'")],
    ids=["null", "array", "upper-prefix"],
)
@pytest.mark.parametrize("name", ["requestSha256", "stateSha256"], ids=["first", "last"])
def test_a_digest_of_another_type_or_spelling(name: str, value: object, shown: str) -> None:
    """≡ is type-strict and exact: null, an array or an upper-case prefix never equal the digest."""
    b = _with_transcript(_set(name, value))
    stated = b[OB]["rawEvidence"][name]
    assert bundle_failure(b) == f"OBS-36 at {WHERE}/{name}: expected rawEvidence.{name} {stated!r}; found {shown}"


def test_the_request_digest_is_the_raw_one_not_the_request_artifacts() -> None:
    """requestArtifact.sha256 differs from the raw requestSha256 (OBS-37, later); the transcript repeats it."""
    artifact_sha = raw_digest("an artifact")
    b = _with_transcript(_set("requestSha256", artifact_sha))
    obs = b[OB]
    obs["requestArtifact"]["sha256"] = artifact_sha
    obs["observationDigest"] = canonical_digest({k: v for k, v in obs.items() if k != "observationDigest"})
    stated = obs["rawEvidence"]["requestSha256"]
    assert bundle_failure(b) == (
        f"OBS-36 at {WHERE}/requestSha256: expected rawEvidence.requestSha256 {stated!r}; found {artifact_sha!r}"
    )


def test_the_first_differing_member_is_named() -> None:
    """All six digests differ: the first in OBS-36's order (requestSha256) is named."""

    def change(transcript: dict[str, Any], b: Any) -> None:
        for name in DIGESTS:
            transcript[name] = OTHER

    stated = bundle()[OB]["rawEvidence"]["requestSha256"]
    assert bundle_failure(_with_transcript(change)) == (
        f"OBS-36 at {WHERE}/requestSha256: expected rawEvidence.requestSha256 {stated!r}; found {OTHER!r}"
    )


def test_the_command_digest_is_the_observations() -> None:
    """The transcript's commandDigest differs from the observation's."""
    b = _with_transcript(_set("commandDigest", OTHER))
    stated = b[OB]["commandDigest"]
    assert bundle_failure(b) == (
        f"OBS-36 at {WHERE}/commandDigest: expected the observation's commandDigest {stated!r}; found {OTHER!r}"
    )


def test_the_command_digest_is_compared_before_the_raw_digests() -> None:
    """commandDigest and stateSha256 both differ: commandDigest, checked first, is named."""

    def change(transcript: dict[str, Any], b: Any) -> None:
        transcript["commandDigest"] = transcript["stateSha256"] = OTHER

    assert bundle_failure(_with_transcript(change)).startswith(f"OBS-36 at {WHERE}/commandDigest: ")


def _argv(change: Any) -> Any:
    def edit(transcript: dict[str, Any], b: Any) -> None:
        transcript["command"] = change(list(transcript["command"]))

    return edit


SCI = "/opt/pinned/semantic-code-intelligence"
ARGV = [SCI, "experimental", "structural-evidence-receipt", "--request-file", "/evidence/prepared-request.json"]


@pytest.mark.parametrize(
    ("change", "found"),
    [
        (lambda c: ["/opt/other/sci", *c[1:]], repr(["/opt/other/sci", *ARGV[1:]])),
        (lambda c: [*c[:-1], "/evidence/other.json"], repr([*ARGV[:-1], "/evidence/other.json"])),
        (lambda c: c[:-1], repr(ARGV[:-1])),
        (lambda c: [*c, "--verbose"], repr([*ARGV, "--verbose"])),
        (lambda c: [c[0], c[2], c[1], c[3], c[4]], repr([ARGV[0], ARGV[2], ARGV[1], ARGV[3], ARGV[4]])),
        (
            lambda c: " ".join(c),
            "'/opt/pinned/semantic-code-intelligence experimental structural-evidence-receip… (126 characters)",
        ),
        (lambda c: [*c[:-1], 5], "an array of 5 elements"),
    ],
    ids=["first", "last", "one-fewer", "one-more", "swapped", "one-string", "number"],
)
def test_the_command_is_the_observations(change: Any, found: str) -> None:
    """Each way the transcript's argv can differ from the observation's command fails at /command."""
    assert bundle_failure(_with_transcript(_argv(change))) == (
        f"OBS-36 at {WHERE}/command: expected canonically the observation's command; found {found}"
    )


def test_equal_values_in_another_text_form_pass() -> None:
    """Canonical equality, not the text: members reordered, no whitespace, escaped slashes."""

    def compact(transcript: dict[str, Any]) -> str:
        text = json.dumps(dict(reversed(list(transcript.items()))), separators=(",", ":"))
        return text.replace("/", "\\/")

    validate(_with_transcript(lambda transcript, b: None, text=compact))
