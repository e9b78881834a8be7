"""The clean environment of every process ``capture`` starts: exactly these variables, nothing inherited.

Owners (source-list, SCI, a ``tool-version`` run) get :func:`owner_environment`:
``PATH``, a private ``HOME``, ``TMPDIR = TMP = TEMP``, ``LANG = LC_ALL = C.UTF-8``,
``TZ = UTC`` and the four git variables that switch off system and user
configuration, optional locks and prompts. No ``NODE_OPTIONS``, no ``XDG_*``,
no proxy: nothing of the caller's environment reaches an owner.

Prepare's own git commands (clone, checkout, state observations, the evidence
command) get :func:`git_environment`: the same variables plus
``core.fsmonitor=false`` and ``core.untrackedCache=false`` through
``GIT_CONFIG_COUNT`` (git 2.31 or later), so the evidence command's argv stays
the protocol's nine elements and an observation never rewrites ``.git/index``.

Spec: PREPARE.md §4 ("Clean environment for owners", "git index evidence").
"""

from __future__ import annotations

import posixpath

from ablation.canonical import canonical_digest

__all__ = [
    "GIT_CONFIG_SETTINGS",
    "environment_digest",
    "git_environment",
    "owner_environment",
    "sci_path",
]

GIT_CONFIG_SETTINGS = (("core.fsmonitor", "false"), ("core.untrackedCache", "false"))
"""The settings every git command of prepare gets through ``GIT_CONFIG_COUNT`` (never in its argv)."""


def owner_environment(*, path: str, home: str, tmpdir: str) -> dict[str, str]:
    """The whole environment of an owner run (PREPARE.md §4), in a fixed order.

    Args:
        path: ``PATH`` (for SCI :func:`sci_path`; otherwise ``environment_path``).
        home: the per-invocation ``HOME`` (an empty folder, or a path that no longer exists).
        tmpdir: the per-invocation ``TMPDIR``, also given as ``TMP`` and ``TEMP``.
    """
    return {
        "PATH": path,
        "HOME": home,
        "TMPDIR": tmpdir,
        "TMP": tmpdir,
        "TEMP": tmpdir,
        "LANG": "C.UTF-8",
        "LC_ALL": "C.UTF-8",
        "TZ": "UTC",
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_CONFIG_GLOBAL": "/dev/null",
        "GIT_OPTIONAL_LOCKS": "0",
        "GIT_TERMINAL_PROMPT": "0",
    }


def git_environment(*, path: str, home: str, tmpdir: str) -> dict[str, str]:
    """:func:`owner_environment` plus :data:`GIT_CONFIG_SETTINGS` as ``GIT_CONFIG_COUNT``/``_KEY_n``/``_VALUE_n``.

    >>> env = git_environment(path="/usr/bin", home="/h", tmpdir="/t")
    >>> [(k, v) for k, v in env.items() if k.startswith("GIT_CONFIG_")][2:]
    [('GIT_CONFIG_COUNT', '2'), ('GIT_CONFIG_KEY_0', 'core.fsmonitor'), ('GIT_CONFIG_VALUE_0', 'false'), \
('GIT_CONFIG_KEY_1', 'core.untrackedCache'), ('GIT_CONFIG_VALUE_1', 'false')]
    """
    environment = owner_environment(path=path, home=home, tmpdir=tmpdir)
    environment["GIT_CONFIG_COUNT"] = str(len(GIT_CONFIG_SETTINGS))
    for k, (key, value) in enumerate(GIT_CONFIG_SETTINGS):
        environment[f"GIT_CONFIG_KEY_{k}"] = key
        environment[f"GIT_CONFIG_VALUE_{k}"] = value
    return environment


def sci_path(backend_path: str, environment_path: str) -> str:
    """SCI's ``PATH``: the folder of the pinned backend, then ``environment_path``.

    >>> sci_path("/opt/sci/bin/ast-grep", "/usr/bin:/bin")
    '/opt/sci/bin:/usr/bin:/bin'
    """
    return f"{posixpath.dirname(backend_path)}:{environment_path}"


def environment_digest(environment: dict[str, str]) -> str:
    """``D(environment)``: the canonical digest of the variables (names sorted by canonical JSON)."""
    return canonical_digest(environment)
