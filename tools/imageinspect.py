"""Inspect a saved image for dates and differences (PRODUCT.md "Reproducible image").

Reads a docker-archive (``docker save IMAGE -o image.tar``, or ``buildah push
IMAGE docker-archive:image.tar``): ``manifest.json``, the config JSON and one
uncompressed tar per layer. Two commands::

    python tools/imageinspect.py dates image.tar [--epoch N]
    python tools/imageinspect.py diff expected.tar rebuilt.tar

``dates`` proves that the only date in the image is ``SOURCE_DATE_EPOCH``
(``--epoch``, default the image's ``io.ablation.source-date-epoch`` label):
the mtime of every member of every layer, the config's ``created`` and every
history entry's ``created`` equal it, and every ``/etc/shadow`` a layer holds
has each last-change field empty or equal to ``epoch // 86400`` (days). Exit 0
when so; exit 3 listing each finding otherwise; exit 2 for an unreadable
archive or a missing epoch.

``diff`` names what differs between two images: config fields (labels,
environment, entrypoint, history commands) and, per layer position, the paths
whose type, mode, owner, mtime, link target or content differ. Exit 0 when the
configs and layers are equal, 3 otherwise. ``tools/image.sh check`` runs it
after a mismatch.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import tarfile
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

EPOCH_LABEL = "io.ablation.source-date-epoch"
SHADOW = "etc/shadow"
MAX_LISTED = 20


class ArchiveError(Exception):
    """The archive is not a readable docker-archive (exit 2)."""


@dataclass(frozen=True)
class Image:
    """A saved image: its config (parsed JSON) and its layers' tar member lists.

    ``layers`` holds, per layer in order, ``{path: Entry}``.
    """

    config: dict[str, Any]
    layers: list[dict[str, Entry]]


@dataclass(frozen=True)
class Entry:
    """One member of a layer tar: what a rebuild must reproduce."""

    kind: str
    mode: int
    uid: int
    gid: int
    mtime: int
    linkname: str
    sha256: str
    content: bytes | None  # kept for /etc/shadow only


def iso(epoch: int) -> str:
    """``epoch`` (seconds) as the RFC 3339 UTC text builders write, e.g. ``2023-11-14T22:13:20Z``."""
    return datetime.fromtimestamp(epoch, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _normal_created(value: object) -> str:
    """A config ``created`` value without fractional zero seconds (``…:20.000000000Z`` → ``…:20Z``)."""
    text = str(value)
    if "." in text and text.endswith("Z"):
        head, frac = text[:-1].split(".", 1)
        if set(frac) <= {"0"}:
            return head + "Z"
    return text


def _entries(layer: tarfile.TarFile) -> dict[str, Entry]:
    entries: dict[str, Entry] = {}
    for member in layer:
        path = member.name.removeprefix("./").rstrip("/")
        digest = ""
        content = None
        if member.isfile():
            handle = layer.extractfile(member)
            data = handle.read() if handle is not None else b""
            digest = hashlib.sha256(data).hexdigest()
            if path == SHADOW:
                content = data
        kind = (
            "file"
            if member.isfile()
            else "dir"
            if member.isdir()
            else "symlink"
            if member.issym()
            else ("hardlink" if member.islnk() else "other")
        )
        entries[path] = Entry(
            kind, member.mode, member.uid, member.gid, int(member.mtime), member.linkname, digest, content
        )
    return entries


def _member(tar: tarfile.TarFile, name: str) -> bytes:
    """The bytes of a regular file of the archive; ``KeyError`` when it is absent or not a regular file."""
    handle = tar.extractfile(name)
    if handle is None:
        raise KeyError(f"{name} is not a regular file")
    return handle.read()


def load(path: Path) -> Image:
    """Read a docker-archive at ``path``.

    Raises:
        ArchiveError: not a tar, no ``manifest.json``, or a config/layer it names is missing.
    """
    try:
        with tarfile.open(path) as outer:
            manifest = json.loads(_member(outer, "manifest.json"))[0]
            config = json.loads(_member(outer, manifest["Config"]))
            layers = []
            for name in manifest["Layers"]:
                with tarfile.open(fileobj=outer.extractfile(name)) as layer:
                    layers.append(_entries(layer))
    except (OSError, KeyError, IndexError, ValueError, AttributeError, tarfile.TarError) as exc:
        raise ArchiveError(f"{path}: not a readable docker-archive ({exc})") from exc
    return Image(config, layers)


def shadow_findings(text: str, epoch: int, where: str) -> list[str]:
    """Last-change fields of a shadow file that are neither empty nor ``epoch // 86400``.

    ``text``: the file; ``where``: the layer, for the messages. Returns one message per bad line.
    """
    day = epoch // 86400
    findings = []
    for number, line in enumerate(text.splitlines(), 1):
        fields = line.split(":")
        if len(fields) < 3:
            continue
        if fields[2] not in ("", str(day)):
            findings.append(
                f"{where} /etc/shadow line {number} ({fields[0]}): last change day {fields[2]}, "
                f"expected empty or {day} (SOURCE_DATE_EPOCH // 86400)"
            )
    return findings


def date_findings(image: Image, epoch: int) -> list[str]:
    """Every date in ``image`` that is not ``epoch``: config, history, layer mtimes, shadow."""
    expected = iso(epoch)
    findings = []
    created = _normal_created(image.config.get("created"))
    if created != expected:
        findings.append(f"config created {created}, expected {expected}")
    for index, entry in enumerate(image.config.get("history", [])):
        value = _normal_created(entry.get("created"))
        if value != expected:
            findings.append(
                f"history[{index}] created {value}, expected {expected} ({entry.get('created_by', '')[:60]})"
            )
    for index, layer in enumerate(image.layers):
        wrong = sorted(path for path, entry in layer.items() if entry.mtime != epoch)
        if wrong:
            shown = ", ".join(f"{p} ({iso(layer[p].mtime)})" for p in wrong[:MAX_LISTED])
            more = f" and {len(wrong) - MAX_LISTED} more" if len(wrong) > MAX_LISTED else ""
            findings.append(f"layer {index}: {len(wrong)} member(s) with mtime other than {expected}: {shown}{more}")
        shadow = layer.get(SHADOW)
        if shadow is not None and shadow.content is not None:
            findings.extend(shadow_findings(shadow.content.decode("utf-8", "replace"), epoch, f"layer {index}"))
    return findings


def _differences(expected: dict[str, Any], rebuilt: dict[str, Any], fields: tuple[str, ...]) -> Iterator[str]:
    for field in fields:
        if expected.get(field) != rebuilt.get(field):
            yield field


def diff_findings(expected: Image, rebuilt: Image) -> list[str]:
    """What differs between two images, as messages naming config fields, layers and paths."""
    findings = []
    exp_conf, reb_conf = expected.config.get("config", {}), rebuilt.config.get("config", {})
    exp_labels, reb_labels = exp_conf.get("Labels") or {}, reb_conf.get("Labels") or {}
    for key in sorted(set(exp_labels) | set(reb_labels)):
        if exp_labels.get(key) != reb_labels.get(key):
            findings.append(f"label {key}: expected {exp_labels.get(key)!r}, rebuilt {reb_labels.get(key)!r}")
    for field in _differences(exp_conf, reb_conf, ("Env", "Entrypoint", "Cmd", "User", "WorkingDir")):
        findings.append(f"config {field}: expected {exp_conf.get(field)!r}, rebuilt {reb_conf.get(field)!r}")
    for field in _differences(expected.config, rebuilt.config, ("created", "architecture", "os")):
        findings.append(
            f"config {field}: expected {expected.config.get(field)!r}, rebuilt {rebuilt.config.get(field)!r}"
        )
    exp_hist = [h.get("created_by") for h in expected.config.get("history", [])]
    reb_hist = [h.get("created_by") for h in rebuilt.config.get("history", [])]
    if exp_hist != reb_hist:
        findings.append("history commands differ")
    if len(expected.layers) != len(rebuilt.layers):
        findings.append(f"layer count: expected {len(expected.layers)}, rebuilt {len(rebuilt.layers)}")
    for index, (old, new) in enumerate(zip(expected.layers, rebuilt.layers, strict=False)):
        changed = sorted(path for path in set(old) | set(new) if old.get(path) != new.get(path))
        for path in changed[:MAX_LISTED]:
            before, after = old.get(path), new.get(path)
            if before is None:
                what = "only in the rebuilt image"
            elif after is None:
                what = "only in the expected image"
            else:
                parts = [
                    name
                    for name in ("kind", "mode", "uid", "gid", "mtime", "linkname", "sha256")
                    if getattr(before, name) != getattr(after, name)
                ]
                what = "differs in " + ", ".join("content" if p == "sha256" else p for p in parts)
            findings.append(f"layer {index}: /{path} {what}")
        if len(changed) > MAX_LISTED:
            findings.append(f"layer {index}: and {len(changed) - MAX_LISTED} more paths")
    return findings


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    dates = sub.add_parser("dates", help="prove SOURCE_DATE_EPOCH is the only date in a saved image")
    dates.add_argument("archive", type=Path)
    dates.add_argument("--epoch", type=int, help=f"SOURCE_DATE_EPOCH (default: the {EPOCH_LABEL} label)")
    differ = sub.add_parser("diff", help="name the differences between two saved images")
    differ.add_argument("expected", type=Path)
    differ.add_argument("rebuilt", type=Path)
    args = parser.parse_args(argv)
    try:
        if args.command == "dates":
            image = load(args.archive)
            epoch = args.epoch
            if epoch is None:
                label = (image.config.get("config", {}).get("Labels") or {}).get(EPOCH_LABEL, "")
                if not label.isdigit():
                    print(f"imageinspect: {args.archive}: no --epoch and no {EPOCH_LABEL} label", file=sys.stderr)
                    return 2
                epoch = int(label)
            findings = date_findings(image, epoch)
            members = sum(len(layer) for layer in image.layers)
            if findings:
                for finding in findings:
                    print(f"imageinspect: date other than SOURCE_DATE_EPOCH={epoch}: {finding}")
                return 3
            print(
                f"imageinspect: only SOURCE_DATE_EPOCH={epoch} ({iso(epoch)}): config created, "
                f"{len(image.config.get('history', []))} history entries, {members} members in "
                f"{len(image.layers)} layers, /etc/shadow last-change fields"
            )
            return 0
        findings = diff_findings(load(args.expected), load(args.rebuilt))
    except ArchiveError as exc:
        print(f"imageinspect: {exc}", file=sys.stderr)
        return 2
    for finding in findings:
        print(f"image-check: {finding}")
    return 3 if findings else 0


if __name__ == "__main__":
    raise SystemExit(main())
