"""Ctrl-C while ``ablation-prepare`` parses its command line is one line and exit 130, as during a subcommand."""

from __future__ import annotations

import pytest

from ablation.prepare import cli


def test_a_sigint_while_parsing_is_one_line(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def interrupted() -> object:
        raise KeyboardInterrupt

    monkeypatch.setattr(cli, "_parser", interrupted)
    assert cli.main(["check", "experiment.toml"]) == 130
    assert capsys.readouterr() == (
        "",
        "ablation-prepare: interrupted by SIGINT; stopped (an output file is written completely or not at all)\n",
    )
