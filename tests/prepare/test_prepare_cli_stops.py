"""How ``ablation-prepare`` stops: Ctrl-C or SIGTERM in any subcommand, and a disk that is full or read-only.

Each is one line on stderr and the product's exit code, never a traceback:
130 or 143 for the signals (as ``ablation`` does, :mod:`ablation.interrupts`),
5 (output refused) when nothing more can be written.

Spec: PRODUCT.md "Command line" (exit codes; no tracebacks); PREPARE.md §2.
"""

from __future__ import annotations

import errno
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from ablation.prepare import cli
from ablation.prepare.commands import COMMANDS

ROOT = Path(__file__).resolve().parents[2]
LINE = "ablation-prepare: interrupted by {}; stopped (an output file is written completely or not at all)\n"


@pytest.mark.parametrize(("signum", "code"), [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_a_signal_during_a_subcommand_is_one_line(
    signum: signal.Signals,
    code: int,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The subcommand receives the signal half-way: one line, 130 or 143, the previous handlers back."""
    previous = signal.getsignal(signal.SIGTERM)

    def signalled(_args: object) -> int:
        os.kill(os.getpid(), signum)
        return 0

    monkeypatch.setitem(COMMANDS, "check", signalled)
    experiment = tmp_path / "experiment.toml"  # never read: the subcommand is replaced
    # As a shell's foreground job: run in the background (nohup, CI), pytest inherits SIGINT ignored,
    # and an ignored signal rightly stays ignored.
    inherited = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        assert cli.main(["check", str(experiment)]) == code
    finally:
        signal.signal(signal.SIGINT, inherited)
    assert capsys.readouterr().err == LINE.format(signum.name)
    assert signal.getsignal(signal.SIGTERM) == previous


def test_ctrl_c_in_a_process_is_one_line_and_no_traceback(tmp_path: Path) -> None:
    """A real process, its SIGINT handler Python's own (as a shell's foreground job): exit 130, one line."""
    code = (
        f"import sys, os, signal; sys.path.insert(0, {str(ROOT)!r})\n"
        "signal.signal(signal.SIGINT, signal.default_int_handler)\n"
        "from ablation.prepare import cli\n"
        "cli.COMMANDS['check'] = lambda args: os.kill(os.getpid(), signal.SIGINT) or 0\n"
        f"sys.exit(cli.main(['check', {str(tmp_path / 'experiment.toml')!r}]))\n"
    )
    done = subprocess.run([sys.executable, "-I", "-B", "-c", code], capture_output=True, text=True, check=False)
    assert (done.returncode, done.stdout, done.stderr) == (130, "", LINE.format("SIGINT"))


@pytest.mark.parametrize("number", [errno.ENOSPC, errno.EDQUOT, errno.EROFS, errno.EFBIG])
def test_a_full_or_read_only_disk_is_exit_5(
    number: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A write the file system refuses, in any subcommand: output refused (exit 5), the file named."""

    def refused(_args: object) -> int:
        raise OSError(number, os.strerror(number), str(tmp_path / "D" / "attempts.jsonl"))

    monkeypatch.setitem(COMMANDS, "check", refused)
    experiment = tmp_path / "experiment.toml"  # never read: the subcommand is replaced
    assert cli.main(["check", str(experiment)]) == 5
    assert capsys.readouterr().err == (
        f"ablation-prepare: output refused: cannot write ({tmp_path}/D/attempts.jsonl): {os.strerror(number)}\n"
    )


def test_another_os_error_is_still_a_bug(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """An error no one foresaw is not dressed up as a refusal: it propagates (exit 1 from the interpreter)."""

    def broken(_args: object) -> int:
        raise OSError(errno.EBADF, os.strerror(errno.EBADF))

    monkeypatch.setitem(COMMANDS, "check", broken)
    experiment = tmp_path / "experiment.toml"  # never read: the subcommand is replaced
    with pytest.raises(OSError, match="Bad file descriptor"):
        cli.main(["check", str(experiment)])
