"""Nothing is loaded between :func:`ablation.output.write_exclusive`'s recheck and the published output.

The recheck (:func:`ablation.closure.check.recheck`) compares every file loaded or mapped since start-up with
the manifest, and the device and inode the kernel mapped with those hashed, before anything is written. What
publishing needs (``tempfile``, and through it ``random``, ``bisect``, ``_random``, ``_sha512``, …) is imported
lazily since issue 18's start-up work, so it must be imported before that recheck, not after it.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

_CHILD = """
import sys
sys.path.insert(0, {root!r})
from ablation import output
seen = []
output.closure_check.recheck = lambda *args: seen.append(set(sys.modules))
output.write_exclusive({target!r}, b"{{}}\\n")
print(" ".join(sorted(set(sys.modules) - seen[0])))
"""


def test_nothing_is_imported_between_the_recheck_and_the_published_output(tmp_path: Path) -> None:
    child = _CHILD.format(root=str(ROOT), target=str(tmp_path / "out.json"))
    done = subprocess.run(
        [sys.executable, "-I", "-B", "-c", child], capture_output=True, text=True, timeout=120, check=False
    )
    assert (done.returncode, done.stderr) == (0, "")
    assert (tmp_path / "out.json").read_bytes() == b"{}\n"
    assert done.stdout == "\n"  # no module loaded after the recheck
