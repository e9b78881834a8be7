"""``SHA256SUMS``: one ``<hex>  <path>\\n`` line per file, sorted by UTF-8 path.

Paths never hold ``\\n``, ``\\r``, another C0 control, DEL or a backslash
(``archive`` refuses such names, :func:`ablation.bundle.layout.check_name`), so
no line needs ``sha256sum``'s backslash escaping and every line reads back by
splitting on ``\\n`` alone: U+0085, U+2028 and U+2029 are ordinary name
characters (PRODUCT.md "Evidence bundle").
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from ablation.bundle.layout import shown, utf8_key
from ablation.canonical import sha256_hex
from ablation.errors import IntegrityError

__all__ = ["parse_sums", "render_sums"]

_SUMS_LINE = re.compile(r"([0-9a-f]{64})  ([^\x00-\x1f\x7f\\]+)")


def render_sums(files: Mapping[str, bytes], digests: Mapping[str, str] | None = None) -> bytes:
    """``SHA256SUMS`` of ``files`` (path → bytes): ``<hex>  <path>\\n`` per file, sorted by UTF-8 path.

    ``digests`` (path → hex) are SHA-256 values the caller already computed
    over exactly those files' bytes (the input, hashed when it was read); the
    other files are hashed here.

    >>> render_sums({"b": b"", "a": b"x"}).decode().split("\\n")[1]
    'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855  b'
    """
    known = digests or {}
    lines = (f"{known.get(p) or sha256_hex(files[p])}  {p}\n" for p in sorted(files, key=utf8_key))
    return "".join(lines).encode("utf-8")


def _text(data: bytes, member: str) -> str:
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        msg = f"{member}: not UTF-8 text"
        raise IntegrityError(msg) from None
    if text and not text.endswith("\n"):
        msg = f"{member}: does not end with a newline"
        raise IntegrityError(msg)
    if "\r" in text:
        msg = f"{member}: holds a carriage return"
        raise IntegrityError(msg)
    return text


def parse_sums(data: bytes, member: str) -> dict[str, str]:
    """``SHA256SUMS`` as ``{path: hex}``: exact lines, sorted by UTF-8 path, no repeats.

    Lines end in ``\\n`` and nothing else: the text is split on ``\\n`` only, so
    a name holding U+0085, U+2028 or U+2029 is one name (``str.splitlines``
    would cut it); a carriage return anywhere is refused.

    Raises:
        IntegrityError: ``<member>: …`` naming the first bad line.
    """
    text = _text(data, member)
    listed: dict[str, str] = {}
    previous: bytes | None = None
    for k, line in enumerate(text[:-1].split("\n"), 1) if text else ():
        match = _SUMS_LINE.fullmatch(line)
        if match is None:
            msg = f"{member}: line {k} is not '<64 lowercase hex>  <path>': {shown(line[:80])}"
            raise IntegrityError(msg)
        digest, path = match.groups()
        if path in listed:
            msg = f"{member}: line {k} lists {shown(path)} a second time"
            raise IntegrityError(msg)
        if previous is not None and utf8_key(path) < previous:
            msg = f"{member}: line {k} ({shown(path)}) is out of UTF-8 order"
            raise IntegrityError(msg)
        previous = utf8_key(path)
        listed[path] = digest
    return listed
