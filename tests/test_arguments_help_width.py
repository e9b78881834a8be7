"""The command lines' :class:`~ablation.arguments.HelpFormatter` writes argparse's own layout.

It only defers argparse's look-up of the terminal's width (which imports
:mod:`shutil`, and with it ``zlib``, ``bz2`` and ``lzma``) from every
``add_argument`` to the moment help is written (decision 20;
``tests/closure/test_start_imports.py``).
"""

from __future__ import annotations

import argparse

import pytest

from ablation import arguments
from ablation.prepare import cli as prepare_cli


def _with_argparse_formatter(parser: argparse.ArgumentParser) -> None:
    """The same parser, every level of it laid out by argparse's own formatter."""
    parser.formatter_class = argparse.HelpFormatter
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub in action.choices.values():
                _with_argparse_formatter(sub)


def _all_help(parser: argparse.ArgumentParser) -> list[str]:
    texts = [parser.format_help(), parser.format_usage()]
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub in action.choices.values():
                texts.extend(_all_help(sub))
    return texts


@pytest.mark.parametrize("columns", ["30", "80", "133"])
@pytest.mark.parametrize("which", ["ablation", "ablation-prepare"])
def test_help_is_argparses_layout(monkeypatch: pytest.MonkeyPatch, columns: str, which: str) -> None:
    monkeypatch.setenv("COLUMNS", columns)
    make = arguments._parsers if which == "ablation" else prepare_cli._parser
    built = make()
    parser = built[0] if isinstance(built, tuple) else built
    ours = _all_help(parser)
    _with_argparse_formatter(parser)
    assert ours == _all_help(parser)
    assert max(len(line) for text in ours for line in text.splitlines()) > 20


def test_a_given_width_is_kept() -> None:
    formatter = arguments.HelpFormatter("ablation", width=50)
    formatter.add_text("word " * 40)
    assert max(len(line) for line in formatter.format_help().splitlines()) <= 50
