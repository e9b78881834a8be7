"""What a reviewer cites: digests, the bundle's signature and the container image, each with its basis."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from ablation.closure.manifest import is_source_revision
from ablation.notes.figures import _Results
from ablation.notes.markdown import _code, _table, _text
from ablation.recorded import ResultsFile
from ablation.results_file import RecordedResults


@dataclass(frozen=True, slots=True)
class Signature:
    """What ``notes`` knows of a bundle's signature (as ``verify-archive`` checked it).

    Attributes:
        status: ``verified``, ``unchecked`` (signed, no public key given) or ``absent``.
        fingerprint: ``sha256:<hex>`` of the public key's DER SubjectPublicKeyInfo, when one was given.
        expected: the key's fingerprint is the one ``--expect-key`` named.
    """

    status: str
    fingerprint: str | None = None
    expected: bool = False


@dataclass(frozen=True, slots=True)
class Recomputed:
    """How ``notes --bundle`` recomputed the result (as ``verify-archive`` does).

    Attributes:
        identity_digest: ``identityDigest`` of the evaluator that recomputed (the one running ``notes``).
        identity_equal: whether the bundle's ``identity.json`` is that identity.
        framing: how the bundle's gzip framing differs from the canonical one (re-compressed), ``None`` when not.
    """

    identity_digest: str
    identity_equal: bool
    framing: str | None = None


def _recorded_image(r: _Results) -> object:
    return r.recorded.evaluator.asserted_value("imageDigest")


def _image_disagrees(r: _Results, image_digest: str | None) -> bool:
    recorded = _recorded_image(r)
    return image_digest is not None and recorded is not None and recorded != image_digest


def _recomputed_text(recomputed: Recomputed | None) -> str:
    """Whether the result was recomputed, and in which evaluator identity (issue 22 item 5)."""
    if recomputed is None:
        return (
            "**no**: drafted from the results file alone; nothing was recomputed (its gate statuses were "
            "re-derived from the figures it records). Recompute with `ablation notes --bundle` or "
            "`ablation verify-archive`"
        )
    same = "the bundle's `identity.json`" if recomputed.identity_equal else "not the bundle's `identity.json`"
    return (
        "**yes**: `ablation notes` read the bundle without extracting it, recomputed `result` and "
        "`gateAssessment` from its input, and they equal its `results.json` byte for byte; recomputed in "
        f"the evaluator identity {_code(recomputed.identity_digest)} ({same})"
    )


def _cite(
    r: _Results,
    results_sha256: str,
    bundle: tuple[str, str] | None,
    signature: Signature | None,
    image_digest: str | None,
    recomputed: Recomputed | None,
) -> list[str]:
    """The digests a reviewer cites, each in one row (issue 12 item 4); their basis follows in "Digests"."""
    rec = r.recorded
    pinned = "pinned by the run" if rec.input_sha256_pinned else "**computed only, not pinned**"
    rows = [["Prepared input SHA-256 (JSON bytes)", f"{_code(rec.input_sha256)} ({pinned})"]]
    if rec.input_gzip_sha256 is not None:
        rows.append(["Prepared input file SHA-256 (the .json.gz)", _code(rec.input_gzip_sha256)])
    rows.append(["Results file SHA-256", _code(results_sha256)])
    rows.append(["Result recomputed", _recomputed_text(recomputed)])
    if bundle is None:
        rows += [
            ["Evidence bundle SHA-256", "no bundle given (`--bundle`)"],
            ["Bundle content SHA-256 (of `SHA256SUMS`)", "no bundle given (`--bundle`)"],
        ]
    else:
        framing = recomputed.framing if recomputed is not None else None
        recompressed = (
            ""
            if framing is None
            else " (**re-compressed**: not the bytes `archive` wrote; the content SHA-256 below names the same "
            "files, cite it)"
        )
        rows += [
            ["Evidence bundle SHA-256", _code(bundle[0]) + recompressed],
            ["Bundle content SHA-256 (of `SHA256SUMS`)", _code(bundle[1])],
        ]
    rows.append(["Evaluator identityDigest", _code(rec.evaluator.identity_digest)])
    rows.append(["Evaluator source revision", _source_revision(rec.evaluator.measured)])
    recorded = _recorded_image(r)
    if _image_disagrees(r, image_digest):
        image = (
            f"{_code(recorded)} (asserted by the run); `--image-digest` says {_code(image_digest)}: "
            '**they differ**, see "Container image"'
        )
    elif recorded is not None:
        image = f"{_code(recorded)} (asserted by the run, not measured)"
    elif image_digest is not None:
        image = f"{_code(image_digest)} (asserted by `--image-digest`, not measured)"
    else:
        image = "not recorded (the run was not made in the container image)"
    rows.append(["Container image ID", image])
    rows.append(["Bundle signature", _signature_status(signature)])
    return ["## What to cite", "", *_table(["What", "Value"], rows)]


def _source_revision(measured: Mapping[str, object]) -> str:
    """The git commit the evaluator's package was built from, as the identity records it (issue 22 item 6)."""
    package = measured.get("package")
    if not isinstance(package, Mapping) or "sourceRevision" not in package:
        return "not recorded (the identity has no `package.sourceRevision`: an evaluator from before it was measured)"
    revision = package["sourceRevision"]
    if revision is None:
        if _member(measured, "closure", "state") == "sealed":
            return "unknown: the evaluator was sealed without a git checkout, so no commit is named"
        return "none: an unsealed development checkout; no commit names this code"
    if not is_source_revision(revision):
        return f"{_code(revision)} (**not a source revision**: a commit id, optionally with `-dirty`, was expected)"
    if isinstance(revision, str) and revision.endswith("-dirty"):
        return f"{_code(revision)} (**dirty**: the package files differ from that commit; no commit names this code)"
    return f"{_code(revision)} (the git commit the evaluator's package was built from; its files are that commit's)"


def _signature_status(signature: Signature | None) -> str:
    if signature is None:
        return "no bundle given (`--bundle`)"
    if signature.status == "verified":
        expected = ", the one `--expect-key` named" if signature.expected else ""
        return f"verified with the public key {_code(signature.fingerprint)}{expected}"
    if signature.status == "unchecked":
        return "present, **not checked** (no `--public-key` given)"
    return "none (the bundle is not signed)"


def _signature(signature: Signature | None) -> list[str]:
    lines = ["## Signature", ""]
    if signature is None:
        lines.append("No bundle was given (`--bundle`), so there is no signature to report.")
    elif signature.status == "verified":
        lines.append(
            f"`SHA256SUMS.sig` is a valid Ed25519 signature over `SHA256SUMS` by the public key whose fingerprint "
            f"(SHA-256 of its DER SubjectPublicKeyInfo) is {_code(signature.fingerprint, cell=False)}. Compare it "
            "with the fingerprint from a trusted source: a signature proves only that the holder of that key "
            "signed `SHA256SUMS`, which names every file of the bundle by its SHA-256."
            + (" It is the fingerprint `--expect-key` named." if signature.expected else "")
        )
    elif signature.status == "unchecked":
        lines.append(
            "The bundle holds `SHA256SUMS.sig`, which was **not checked**: no public key was given. Check it with "
            "`ablation notes --public-key P` or `ablation verify-archive --public-key P`."
        )
    else:
        lines.append("The bundle is **not signed** (it holds no `SHA256SUMS.sig`); its digests are not tied to a key.")
    return lines


def _image(r: _Results, image_digest: str | None) -> list[str]:
    recorded = _recorded_image(r)
    base = r.recorded.evaluator.asserted_value("baseImage")
    at_run = "**asserted** at run time (`evaluator.asserted.{}`); ablation did not measure or verify it"
    rows = []
    if recorded is not None:
        rows.append(["Image ID (results file)", _code(recorded), at_run.format("imageDigest")])
    if image_digest is not None and image_digest != recorded:
        by_caller = "**asserted** by the caller of `ablation notes`; ablation did not measure or verify it"
        rows.append(["Image ID (`--image-digest`)", _code(image_digest), by_caller])
    if not rows:
        rows.append(
            [
                "Image ID",
                "not recorded",
                "the run was not made in the container image, and no `--image-digest` was given",
            ]
        )
    rows.append(
        [
            "Base image",
            "not recorded" if base is None else _code(base),
            at_run.format("baseImage") if base is not None else "nothing was asserted",
        ]
    )
    lines = ["## Container image", "", *_table(["What", "Value", "Basis"], rows)]
    if _image_disagrees(r, image_digest):
        lines += [
            "",
            f"**Warning:** `--image-digest` {_code(image_digest, cell=False)} differs from the image ID the "
            f"results file records, {_code(recorded, cell=False)}. The run did not record the image you named: "
            "cite the recorded one, or find out which image made the results.",
        ]
    return lines


def _digests(r: _Results, results_sha256: str, bundle: tuple[str, str] | None) -> list[str]:
    rec = r.recorded
    rows = [
        [
            "Prepared input (SHA-256 of the JSON bytes that were parsed)",
            _code(rec.input_sha256),
            "pinned: the run was given this hash and it matched"
            if rec.input_sha256_pinned
            else "computed only: the run was **not** bound to a preregistered hash; "
            "compare it with the preregistration record",
        ]
    ]
    if rec.input_gzip_sha256 is not None:
        rows.append(
            ["Prepared input file (SHA-256 of the .json.gz)", _code(rec.input_gzip_sha256), "measured by the run"]
        )
    rows.append(["Results file (SHA-256 of its bytes)", _code(results_sha256), "measured by `ablation notes`"])
    if bundle is None:
        rows.append(
            ["Evidence bundle (SHA-256)", "not given", "run `ablation archive`, then `ablation notes --bundle`"]
        )
    else:
        rows.append(
            [
                "Evidence bundle (SHA-256)",
                _code(bundle[0]),
                "measured by `ablation notes`, which checked the bundle as `ablation verify-archive` does; "
                "its results.json is this results file",
            ]
        )
        rows.append(
            [
                "Bundle content (SHA-256 of `SHA256SUMS`)",
                _code(bundle[1]),
                "measured by `ablation notes`: names what the bundle holds, whatever its compression",
            ]
        )
    rows += _evaluator_rows(rec.evaluator.measured, rec.evaluator.identity_digest)
    return ["## Digests", "", *_table(["What", "Value", "Basis"], rows)]


def _evaluator_rows(measured: Mapping[str, object], identity_digest: str) -> list[list[str]]:
    """The "Digests" rows of the evaluator: its identityDigest, source revision, closure and lock."""
    closure = _member(measured, "closure", "state")
    manifest = _member(measured, "closure", "manifestDigest")
    lock = _member(measured, "lock", "sha256")
    return [
        [
            "Evaluator identityDigest",
            _code(identity_digest),
            "measured by the run: canonical digest of `evaluator.measured`",
        ],
        [
            "Evaluator source revision",
            _source_revision(measured),
            "measured at sealing: the commit of the checkout the package was built from, `-dirty` unless the "
            "installed package files are byte for byte that commit's files under `ablation/`",
        ],
        [
            "Evaluator closure",
            f"{_text(closure)}" + (f", manifest {_code(manifest)}" if manifest else ""),
            "measured by the run; `unsealed` means a development checkout, not a sealed build",
        ],
        ["Dependency lock (SHA-256)", _code(lock) if lock else "none", "measured by the run"],
    ]


def _member(value: object, *path: str) -> object:
    """A member of the identity's ``measured`` (kept as recorded: :mod:`ablation.identity` owns its shape)."""
    for name in path:
        value = value.get(name) if isinstance(value, Mapping) else None
    return value


def image_warning(recorded: RecordedResults | ResultsFile, image_digest: str | None) -> str | None:
    """The warning when ``--image-digest`` differs from the image ID the results file records, else ``None``."""
    r = _Results(recorded)
    if not _image_disagrees(r, image_digest):
        return None
    return (
        f"--image-digest {image_digest!r} differs from the image ID the results file records, "
        f"{_recorded_image(r)!r}; the notes show both"
    )
