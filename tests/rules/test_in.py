"""IN — the input's size (product rule IN-1, exit 4): ablation reads at most ``--max-input-bytes`` (+1) of a file.

The same bound on the decompressed bytes of a ``.json.gz`` is GZ-1 (``test_gz.py``).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest


def test_in1_plain_input_over_the_bound_is_read_no_further(
    prepared_file: Path, cli: Callable[..., int], capsys: pytest.CaptureFixture[str]
) -> None:
    assert cli("verify", "--input", prepared_file, "--max-input-bytes", "1000") == 4
    assert capsys.readouterr().err.splitlines()[-1] == (
        "IN-1 at byte 1000: expected an input file of at most 1000 bytes; found more bytes (raise --max-input-bytes)"
    )
    # a device is not a regular file: refused before a byte of it is read (issue 23 item 2)
    assert cli("verify", "--input", "/dev/zero", "--max-input-bytes", "1000") == 2
    capsys.readouterr()
