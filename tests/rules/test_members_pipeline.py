"""IN-1, GZ-1 and the input's usage errors, in process, where ``make mutate`` sees them (issue 25 item 2).

``ablation/pipeline.py`` holds the two product rules that bound what is
read: IN-1 (a file larger than ``--max-input-bytes``; at most that many
bytes plus one are read of any file) and GZ-1 (every member of a
``.json.gz`` checked as RFC 1952 says). Its first mutation run (issue 25)
left survivors in code that only subprocess tests (which in-process mutants
cannot reach) or no test exercised: the bounded read, truncated optional
gzip header fields, a corrupt deflate stream, a member decompressed in more
than one step, the hash-argument usage errors and ``evaluate``'s fail-fast
default. Each test pins exact values: the bytes returned, how many bytes were
read, the whole GZ-1 line or usage message.

Spec: PRODUCT.md "IN-1", "GZ-1", "Exit codes"; RFC 1952 §2.3.
"""

from __future__ import annotations

import errno
import gzip
import io
import os
import random
import struct
import tracemalloc
import zlib
from pathlib import Path

import pytest

from ablation import pipeline
from ablation.errors import InputRejected, RejectedInput, ResourcesExhausted, UsageError
from ablation.pipeline import _read_bounded, evaluate, gunzip_members, load_input
from tests.builders import prepared as builder
from tests.rules.members_support import minimal

LIMIT = 1 << 20
HEADER = b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\xff"  # a member header without optional fields (FLG = 0)


def _raw_deflate(data: bytes) -> bytes:
    compressor = zlib.compressobj(9, zlib.DEFLATED, -zlib.MAX_WBITS)
    return compressor.compress(data) + compressor.flush()


def _member(data: bytes, flags: int = 0, fields: bytes = b"") -> bytes:
    """One gzip member of ``data`` with FLG ``flags`` and the optional ``fields`` after the fixed header."""
    trailer = struct.pack("<II", zlib.crc32(data), len(data) & 0xFFFFFFFF)
    return HEADER[:3] + bytes([flags]) + HEADER[4:] + fields + _raw_deflate(data) + trailer


def _gz1(data: bytes, limit: int = LIMIT) -> str:
    with pytest.raises(InputRejected) as info:
        gunzip_members(data, limit)
    return str(info.value)


# ---------------------------------------------------------------- GZ-1: optional header fields at the end of the file


def test_an_empty_FNAME_is_a_zero_byte() -> None:
    """FNAME of zero characters (its terminator alone) is well-formed."""
    assert gunzip_members(_member(b"{}", 0x08, b"\x00"), LIMIT) == b"{}"


def test_an_FEXTRA_field_alone_is_skipped_by_its_length() -> None:
    """FEXTRA with XLEN 3 and no other optional field: the deflate data starts right after its 3 bytes."""
    assert gunzip_members(_member(b"{}", 0x04, b"\x03\x00abc"), LIMIT) == b"{}"


@pytest.mark.parametrize(
    ("data", "line"),
    [
        (
            HEADER[:3] + b"\x04" + HEADER[4:],
            "GZ-1 at byte 10: expected the 2-byte FEXTRA length; found the end of the file",
        ),
        (
            HEADER[:3] + b"\x04" + HEADER[4:] + b"\x03",
            "GZ-1 at byte 10: expected the 2-byte FEXTRA length; found the end of the file",
        ),
        (
            HEADER[:3] + b"\x04" + HEADER[4:] + b"\x00\x00",
            "GZ-1 at byte 12: expected the rest of the deflate stream; found the end of the file",
        ),
        (
            HEADER[:3] + b"\x04" + HEADER[4:] + b"\x03\x00abc",
            "GZ-1 at byte 15: expected the rest of the deflate stream; found the end of the file",
        ),
        (
            HEADER[:3] + b"\x04" + HEADER[4:] + b"\x03\x00ab",
            "GZ-1 at byte 14: expected the rest of the FEXTRA field; found the end of the file",
        ),
        (
            HEADER[:3] + b"\x02" + HEADER[4:],
            "GZ-1 at byte 10: expected the 2-byte header CRC (FHCRC); found the end of the file",
        ),
        (
            HEADER[:3] + b"\x02" + HEADER[4:] + b"\x00",
            "GZ-1 at byte 10: expected the 2-byte header CRC (FHCRC); found the end of the file",
        ),
        (
            HEADER[:3]
            + b"\x02"
            + HEADER[4:]
            + struct.pack("<H", zlib.crc32(HEADER[:3] + b"\x02" + HEADER[4:]) & 0xFFFF),
            "GZ-1 at byte 12: expected the rest of the deflate stream; found the end of the file",
        ),
    ],
    ids=[
        "fextra-no-length",
        "fextra-one-byte",
        "fextra-empty-then-end",
        "fextra-exactly-to-end",
        "fextra-cut",
        "fhcrc-none",
        "fhcrc-one-byte",
        "fhcrc-then-end",
    ],
)
def test_optional_fields_cut_by_the_end_of_the_file(data: bytes, line: str) -> None:
    """Each optional field cut short (or ending exactly at the end of the file): GZ-1 where the bytes ran out."""
    assert _gz1(data) == line


def test_a_short_header_after_a_member() -> None:
    """Four bytes ``1f 8b 08 00`` after a valid member: not a 10-byte header, at the offset of the second member."""
    first = gzip.compress(b"{}", mtime=0)
    assert _gz1(first + b"\x1f\x8b\x08\x00") == (
        f"GZ-1 at byte {len(first)}: expected a 10-byte gzip member header; found only 4 bytes (1f 8b 08 00)"
    )


@pytest.mark.parametrize(("extra", "shown"), [(8, "1f 8b 00 00 00 00 00 00"), (9, "1f 8b 00 00 00 00 00 00 …")])
def test_trailing_bytes_are_shown_up_to_eight(extra: int, shown: str) -> None:
    """Eight trailing bytes are shown in full; a ninth adds an ellipsis."""
    first = gzip.compress(b"{}", mtime=0)
    trailing = b"\x1f\x8b" + bytes(extra - 2)
    assert _gz1(first + trailing) == (
        f"GZ-1 at byte {len(first)}: expected another gzip member (1f 8b 08) or the end of the file; "
        f"found {extra} more bytes ({shown})"
    )


def test_a_corrupt_deflate_stream() -> None:
    """Deflate data with an invalid block type: GZ-1 at the start of the piece being inflated, zlib's words."""
    assert _gz1(HEADER + b"\xff" * 16) == (
        "GZ-1 at byte 10: expected a valid deflate stream; found a corrupt one "
        "(Error -3 while decompressing data: invalid block type)"
    )


def test_a_member_inflated_in_several_steps_checks_its_whole_crc_and_size() -> None:
    """1.5 MiB of incompressible data: more than one 1 MiB piece; CRC-32 and ISIZE cover all of it."""
    data = random.Random(25).randbytes(3 << 19)
    assert gunzip_members(_member(data) + _member(b"tail"), 4 * LIMIT) == data + b"tail"


def test_a_bomb_is_never_decompressed_past_the_bound() -> None:
    """64 MiB of zeros, bound 1 MiB: GZ-1, and no more than a few MiB is ever allocated on the way."""
    bomb = _member(bytes(64 << 20))
    tracemalloc.start()
    try:
        assert _gz1(bomb) == (
            f"GZ-1 at byte 0: expected at most {LIMIT} decompressed bytes; found more (raise --max-input-bytes)"
        )
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 8 * LIMIT


def test_a_bomb_in_a_later_member_is_cut_at_what_the_bound_leaves() -> None:
    """A first member of the bound less 10 bytes, then a 64 MiB bomb: the bomb may add 11 bytes, not another MiB."""
    first = _member(bytes(LIMIT - 10))
    bomb = _member(bytes(64 << 20))
    tracemalloc.start()
    try:
        assert _gz1(first + bomb) == (
            f"GZ-1 at byte {len(first)}: expected at most {LIMIT} decompressed bytes; "
            "found more (raise --max-input-bytes)"
        )
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 3 * LIMIT  # the first member's output, grown in place (about 2.2 MiB here), not another 2 MiB


# ---------------------------------------------------------------- IN-1: at most the bound plus one byte is read


class _Counted(io.BytesIO):
    """An in-memory stream without a file descriptor (like a pipe): ``fstat`` cannot size it."""


def test_a_stream_of_exactly_the_bound_is_read_whole() -> None:
    """A stream without a size, of exactly ``limit`` bytes, in several reads: every byte, in order."""
    data = bytes(range(256)) * 5
    assert _read_bounded(_Counted(data), len(data)) == data


def test_a_stream_past_the_bound_is_read_to_the_bound_plus_one() -> None:
    """A longer stream: ``None``, and no more than ``limit + 1`` bytes were consumed."""
    stream = _Counted(bytes(5000))
    assert _read_bounded(stream, 1000) is None
    assert stream.tell() == 1001


def test_a_regular_file_of_exactly_the_bound(tmp_path: Path) -> None:
    """A file of ``limit`` bytes is read whole; one byte more is IN-1 and not read at all."""
    path = tmp_path / "prepared.json"
    path.write_bytes(b"x" * 4096)
    with path.open("rb") as handle:
        assert _read_bounded(handle, 4096) == b"x" * 4096
    with path.open("rb") as handle:
        assert _read_bounded(handle, 4095) is None
        assert handle.tell() == 0


def test_IN_1_names_the_bound(tmp_path: Path) -> None:
    """load_input of a file one byte over the bound: IN-1 at that byte."""
    path = tmp_path / "prepared.json"
    path.write_bytes(b"x" * 11)
    with pytest.raises(InputRejected) as info:
        load_input(str(path), max_input_bytes=10)
    assert str(info.value) == (
        "IN-1 at byte 10: expected an input file of at most 10 bytes; found more bytes (raise --max-input-bytes)"
    )
    assert load_input(str(path), max_input_bytes=11).data == b"x" * 11


# ---------------------------------------------------------------- usage errors of the input's arguments


def _usage(path: Path, **options: object) -> str:
    with pytest.raises(UsageError) as info:
        load_input(str(path), **options)  # type: ignore[arg-type]
    return str(info.value)


@pytest.fixture
def prepared(tmp_path: Path) -> Path:
    """A two-byte ``prepared.json`` (``{}``)."""
    path = tmp_path / "prepared.json"
    path.write_bytes(b"{}")
    return path


def test_a_malformed_input_sha256_is_named(prepared: Path) -> None:
    """Not 64 hex digits: the option and the value given."""
    assert _usage(prepared, input_sha256="abc") == "--input-sha256 must be 64 hexadecimal digits, got 'abc'"


def test_a_malformed_input_gzip_sha256_is_named(prepared: Path) -> None:
    """The same for the compressed file's hash, even for a plain .json (the argument is checked first)."""
    assert _usage(prepared, input_gzip_sha256="g" * 64) == (
        f"--input-gzip-sha256 must be 64 hexadecimal digits, got {'g' * 64!r}"
    )


def test_a_gzip_hash_for_a_plain_json_input(prepared: Path) -> None:
    """A well-formed --input-gzip-sha256 for a file that is not .gz."""
    assert _usage(prepared, input_gzip_sha256="0" * 64) == "--input-gzip-sha256 applies only to a .gz input"


@pytest.mark.parametrize("bound", [0, -1])
def test_the_bound_is_positive(prepared: Path, bound: int) -> None:
    """--max-input-bytes below 1 is a usage error; 2 bytes fit a bound of 2 (and 1 byte a bound of 1)."""
    assert _usage(prepared, max_input_bytes=bound) == (
        f"--max-input-bytes must be a positive number of bytes, got {bound}"
    )
    assert load_input(str(prepared), max_input_bytes=2).data == b"{}"
    one = prepared.with_name("one.json")
    one.write_bytes(b"1")
    assert load_input(str(one), max_input_bytes=1).data == b"1"


def test_upper_case_hex_is_accepted(prepared: Path) -> None:
    """The hash arguments are compared in lower case."""
    loaded = load_input(str(prepared), input_sha256="44136FA355B3678A1146AD16F7E8649E94FB4FC21FE77E8310C060F61CAAFF8A")
    assert (loaded.sha256, loaded.pinned) == ("44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a", True)


@pytest.mark.parametrize(
    ("code", "error"),
    [
        (errno.EMFILE, ResourcesExhausted),
        (errno.ENFILE, ResourcesExhausted),
        (errno.ENOMEM, ResourcesExhausted),
        (errno.EACCES, UsageError),
    ],
    ids=["EMFILE", "ENFILE", "ENOMEM", "EACCES"],
)
def test_an_open_that_fails_for_want_of_resources_is_exit_6(
    prepared: Path, monkeypatch: pytest.MonkeyPatch, code: int, error: type[Exception]
) -> None:
    """No descriptor or memory to open the input: ResourcesExhausted (exit 6); any other error: UsageError (exit 2)."""

    def refuse(*args: object, **kwargs: object) -> None:
        raise OSError(code, "refused")

    monkeypatch.setattr(os, "open", refuse)  # what ablation.files.open_regular calls
    with pytest.raises(error) as info:
        load_input(str(prepared))
    assert str(info.value) == f"cannot read input {str(prepared)!r}: refused"


@pytest.mark.parametrize(
    ("code", "error"),
    [(errno.ENOMEM, ResourcesExhausted), (errno.EIO, UsageError)],
    ids=["ENOMEM", "EIO"],
)
def test_a_read_that_fails_after_the_open_is_exit_6_or_2(
    prepared: Path, monkeypatch: pytest.MonkeyPatch, code: int, error: type[Exception]
) -> None:
    """The file opened, then its read failed: no memory is ResourcesExhausted (exit 6), anything else UsageError."""

    def fail(*args: object) -> None:
        raise OSError(code, os.strerror(code))

    monkeypatch.setattr(pipeline, "_read_bounded", fail)
    with pytest.raises(error) as info:
        load_input(str(prepared))
    assert type(info.value) is error
    assert str(info.value) == f"cannot read input {str(prepared)!r}: {os.strerror(code)}"


# ---------------------------------------------------------------- evaluate: fail fast unless asked


def test_evaluate_fails_fast_by_default() -> None:
    """Two violations: evaluate reports the first alone (InputRejected); with collect_all both (RejectedInput)."""
    obj = minimal()
    obj["protocol"] = "v1"
    obj["cases"][0]["id"] = ""
    data = builder.dumps(obj)
    with pytest.raises(InputRejected) as first:
        evaluate(data)
    assert str(first.value).startswith("TOP-14 at /protocol: ")
    with pytest.raises(RejectedInput) as every:
        evaluate(data, collect_all=True)
    assert [v.rule for v in every.value.violations] == ["TOP-14", "CASE-3"]


def test_evaluate_keeps_the_experiment_and_the_outcomes() -> None:
    """The Evaluation holds the validated experiment and one outcome per case."""
    evaluation = evaluate(builder.dumps(minimal()))
    assert [c.record.id for c in evaluation.experiment.cases] == [f"repo-{n}" for n in range(1, 11)]
    assert len(evaluation.outcomes) == 10
