"""What a reviewer cites: digests, the bundle's signature and the container image, each with its basis."""

from __future__ import annotations

from dataclasses import dataclass

from ablation.notes.figures import _get, _Results
from ablation.notes.markdown import _code, _table, _text
from ablation.results_file import RecordedResults


@dataclass(frozen=True, slots=True)
class Signature:
    """What ``notes`` knows of a bundle's signature (from :func:`ablation.bundle.bundled.check_signature`).

    Attributes:
        status: ``verified``, ``unchecked`` (signed, no public key given) or ``absent``.
        fingerprint: ``sha256:<hex>`` of the public key's DER SubjectPublicKeyInfo, when one was given.
    """

    status: str
    fingerprint: str | None = None


def _recorded_image(r: _Results) -> object:
    return r.recorded.evaluator.asserted_value("imageDigest")


def _image_disagrees(r: _Results, image_digest: str | None) -> bool:
    recorded = _recorded_image(r)
    return image_digest is not None and recorded is not None and recorded != image_digest


def _cite(
    r: _Results,
    results_sha256: str,
    bundle: tuple[str, str] | None,
    signature: Signature | None,
    image_digest: str | None,
) -> list[str]:
    """The digests a reviewer cites, each in one row (issue 12 item 4); their basis follows in "Digests"."""
    rec = r.recorded
    pinned = "pinned by the run" if rec.input_sha256_pinned else "**computed only, not pinned**"
    rows = [["Prepared input SHA-256 (JSON bytes)", f"{_code(rec.input_sha256)} ({pinned})"]]
    if rec.input_gzip_sha256 is not None:
        rows.append(["Prepared input file SHA-256 (the .json.gz)", _code(rec.input_gzip_sha256)])
    rows.append(["Results file SHA-256", _code(results_sha256)])
    if bundle is None:
        rows += [
            ["Evidence bundle SHA-256", "no bundle given (`--bundle`)"],
            ["Bundle content SHA-256 (of `SHA256SUMS`)", "no bundle given (`--bundle`)"],
        ]
    else:
        rows += [
            ["Evidence bundle SHA-256", _code(bundle[0])],
            ["Bundle content SHA-256 (of `SHA256SUMS`)", _code(bundle[1])],
        ]
    rows.append(["Evaluator identityDigest", _code(rec.evaluator.identity_digest)])
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


def _signature_status(signature: Signature | None) -> str:
    if signature is None:
        return "no bundle given (`--bundle`)"
    if signature.status == "verified":
        return f"verified with the public key {_code(signature.fingerprint)}"
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
                "measured by `ablation notes`; the bundle's results.json is this results file; "
                "check it with `ablation verify-archive`",
            ]
        )
        rows.append(
            [
                "Bundle content (SHA-256 of `SHA256SUMS`)",
                _code(bundle[1]),
                "measured by `ablation notes`: names what the bundle holds, whatever its compression",
            ]
        )
    measured = rec.evaluator.measured
    rows.append(
        [
            "Evaluator identityDigest",
            _code(rec.evaluator.identity_digest),
            "measured by the run: canonical digest of `evaluator.measured`",
        ]
    )
    closure = _get(measured, "closure", "state")
    manifest = _get(measured, "closure", "manifestDigest")
    rows.append(
        [
            "Evaluator closure",
            f"{_text(closure)}" + (f", manifest {_code(manifest)}" if manifest else ""),
            "measured by the run; `unsealed` means a development checkout, not a sealed build",
        ]
    )
    lock = _get(measured, "lock", "sha256")
    rows.append(["Dependency lock (SHA-256)", _code(lock) if lock else "none", "measured by the run"])
    return ["## Digests", "", *_table(["What", "Value", "Basis"], rows)]


def image_warning(recorded: RecordedResults, image_digest: str | None) -> str | None:
    """The warning when ``--image-digest`` differs from the image ID the results file records, else ``None``."""
    r = _Results(recorded)
    if not _image_disagrees(r, image_digest):
        return None
    return (
        f"--image-digest {image_digest!r} differs from the image ID the results file records, "
        f"{_recorded_image(r)!r}; the notes show both"
    )
