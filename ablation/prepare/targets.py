"""The targets: clone and detached checkout of each source, and every observation of a source or a target.

All of it runs the pinned git through :meth:`AttemptRun.spawn` (so each command
is re-hashed, recorded in the ledger, and leaves its stdout and stderr in the
attempt folder), with :func:`~ablation.prepare.environment.git_environment`:
no system or user configuration, no optional locks, ``core.fsmonitor`` and
``core.untrackedCache`` off. No observation rewrites ``.git/index`` (a plain
``git status`` after a ``touch`` would).

- :func:`clone_target`: ``git clone --quiet --no-local --no-hardlinks <source>
  <work_root>/targets/<nnn>``, then ``git checkout --quiet --detach <commit>`` in it.
- :func:`observe_source`: a source repository before and after its clone: bare or
  not, its git folder, HEAD, every ref (``for-each-ref``), the SHA-256 of
  ``HEAD`` and ``packed-refs`` and, for a checkout, of its status and ``.git/index``.
- :func:`observe_target`: a target before and after an owner run: ``rev-parse
  HEAD`` and ``status --porcelain=v1 --untracked-files=all`` (the protocol's
  fields), and for the record the ``--ignored`` status, the ``.git/index``
  SHA-256, the ``ls-files --stage`` listing, and whether ``.sci``,
  ``.semantic-graph`` and ``.ontology`` exist at the top level (``lstat``).
- :func:`tracked_path_evidence`: the evidence command of PREP-16, its stdout the
  file ``git-ls-files-stage.bin``.

A git command that does not exit 0 by itself fails the step (CAP-11).

Spec: PREPARE.md §4 ("target tree", "target state", "git index evidence"), §9.5.
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass

from ablation.contracts.preparation import GIT_COMMAND
from ablation.prepare.attempts import AttemptRun, Ran, StepFailed
from ablation.prepare.environment import git_environment
from ablation.prepare.findings import Finding

__all__ = [
    "CLASS_A",
    "EVIDENCE_FILE",
    "TargetState",
    "clone_target",
    "git_timeout",
    "observe_source",
    "observe_target",
    "presence",
    "tracked_path_evidence",
]

CLASS_A = (".sci", ".semantic-graph", ".ontology")
"""The index and ontology folders at a target's top level (class (a) of PREPARE.md §4)."""
EVIDENCE_FILE = "git-ls-files-stage.bin"
"""The evidence command's stdout in a ``raw/repositories`` attempt folder."""
_GIT_TIMEOUT_S = 600


def git_timeout(process_timeout_s: int) -> float:
    """The wall limit of one git command of prepare: ``process_timeout_s``, at least 600 s."""
    return float(max(_GIT_TIMEOUT_S, process_timeout_s))


def _git(attempt: AttemptRun, name: str, args: tuple[str, ...], cwd: str, *, stdout_name: str | None = None) -> Ran:
    """Run the pinned git with ``args`` in ``cwd``; CAP-11 unless it exits 0 by itself."""
    experiment = attempt.session.experiment
    environment = git_environment(path=experiment.environment_path, home=attempt.home, tmpdir=attempt.tmp)
    argv = (experiment.tools["git"].path, *args)
    ran = attempt.spawn(
        name,
        "git",
        (argv, cwd, cwd, environment),
        tools=("git",),
        timeout_s=git_timeout(experiment.process_timeout_s),
        stdout_name=stdout_name,
    )
    if not ran.outcome.clean_exit:
        o = ran.outcome
        how = (
            f"it did not start ({o.not_started})"
            if o.not_started
            else f"exit {o.exit_code}"
            if o.exit_code is not None
            else f"signal {o.signal}"
        )
        if o.exit_code == 0:
            how = "its process group outlived it and was killed"
        first = ran.stderr.decode("utf-8", "backslashreplace").strip().splitlines()
        where = attempt.session.shown(f"{attempt.folder}/{ran.stderr_name}")
        found = f"{how}{': ' + first[0] if first else ''}"
        raise StepFailed(Finding("CAP-11", where, f"git {' '.join(args[:3])} to exit 0", found))
    return ran


def _text(attempt: AttemptRun, ran: Ran, what: str) -> str:
    try:
        return ran.stdout.decode("utf-8")
    except UnicodeDecodeError as exc:
        where = attempt.session.shown(f"{attempt.folder}/{ran.stdout_name}")
        raise StepFailed(Finding("CAP-11", where, f"{what} in UTF-8", f"the byte at {exc.start}")) from None


def _file_sha256(path: str) -> str | None:
    try:
        with open(path, "rb") as stream:
            return hashlib.file_digest(stream, "sha256").hexdigest()
    except FileNotFoundError:
        return None


def clone_target(attempt: AttemptRun, source: str, commit: str, target: str) -> None:
    """Clone ``source`` into ``target`` (which must not exist) and check out ``commit`` detached.

    Raises:
        StepFailed: CAP-8 (the target exists), CAP-11 (git failed).
    """
    if os.path.lexists(target):
        raise StepFailed(Finding("CAP-8", target, "a new target folder", "it exists already"))
    parent = os.path.dirname(target)
    os.makedirs(parent, exist_ok=True)
    _git(attempt, "git-clone", ("clone", "--quiet", "--no-local", "--no-hardlinks", source, target), parent)
    _git(attempt, "git-checkout", ("checkout", "--quiet", "--detach", commit), target)


def observe_source(attempt: AttemptRun, source: str, when: str) -> dict[str, object]:
    """What must not change in a source repository while it is cloned (PREPARE.md §9.5).

    Returns:
        ``{bare, gitDir, head, headFileSha256, refsSha256, packedRefsSha256, statusSha256, gitIndexSha256}``
        (the last two ``None`` for a bare repository).
    """
    place = ("-C", source)
    lines = _text(
        attempt,
        _git(
            attempt,
            f"source-{when}.rev-parse",
            (*place, "rev-parse", "--is-bare-repository", "--absolute-git-dir", "HEAD"),
            "/",
        ),
        "rev-parse's output",
    ).split("\n")
    bare, git_dir, head = lines[0] == "true", lines[1], lines[2]
    refs = _git(
        attempt, f"source-{when}.for-each-ref", (*place, "for-each-ref", "--format=%(objectname) %(refname)"), "/"
    )
    state: dict[str, object] = {
        "bare": bare,
        "gitDir": git_dir,
        "head": head,
        "headFileSha256": _file_sha256(os.path.join(git_dir, "HEAD")),
        "refsSha256": hashlib.sha256(refs.stdout).hexdigest(),
        "packedRefsSha256": _file_sha256(os.path.join(git_dir, "packed-refs")),
        "statusSha256": None,
        "gitIndexSha256": None,
    }
    if not bare:
        args = (*place, "status", "--porcelain=v1", "-z", "--untracked-files=all", "--ignored")
        status = _git(attempt, f"source-{when}.status", args, "/")
        state["statusSha256"] = hashlib.sha256(status.stdout).hexdigest()
        state["gitIndexSha256"] = _file_sha256(os.path.join(git_dir, "index"))
    return state


def presence(target: str, name: str) -> str:
    """``present`` when ``<target>/<name>`` exists as anything (``lstat``), else ``absent``."""
    return "present" if os.path.lexists(os.path.join(target, name)) else "absent"


@dataclass(frozen=True, slots=True)
class TargetState:
    """One observation of a target (PREPARE.md §4 "target state").

    Attributes:
        head: ``rev-parse HEAD`` without its line feed.
        status: ``status --porcelain=v1 --untracked-files=all`` as git wrote it, decoded as UTF-8.
        status_ignored: the same with ``--ignored`` (for the record).
        git_index_sha256: bare hex SHA-256 of ``.git/index`` (``None`` when there is none).
        stage_listing: the ``ls-files --cached --stage -z`` output (the evidence command's).
        presence: ``absent`` or ``present`` for each name of :data:`CLASS_A`.
    """

    head: str
    status: str
    status_ignored: str
    git_index_sha256: str | None
    stage_listing: bytes
    presence: dict[str, str]

    @property
    def clean(self) -> bool:
        """The protocol's clean flag: the status is empty."""
        return self.status == ""

    @property
    def class_a(self) -> bool:
        """A class-(a) path exists at the top level."""
        return "present" in self.presence.values()

    def protocol(self) -> dict[str, object]:
        """What the observations carry: ``{head, status}`` (PREP-14, OBS-15)."""
        return {"head": self.head, "status": self.status}

    def extras(self) -> dict[str, object]:
        """What only the record carries: ignored status, the two hashes, the presences."""
        return {
            "head": self.head,
            "statusIgnored": self.status_ignored,
            "gitIndexSha256": self.git_index_sha256,
            "lsFilesStageSha256": hashlib.sha256(self.stage_listing).hexdigest(),
            "presence": dict(self.presence),
        }


def observe_target(attempt: AttemptRun, target: str, when: str) -> TargetState:
    """Observe ``target`` (``when``: ``before`` or ``after``) without rewriting its index.

    Raises:
        StepFailed: CAP-11 (a git command failed, or a status that is not UTF-8).
    """
    head = _text(attempt, _git(attempt, f"state-{when}.head", ("rev-parse", "HEAD"), target), "HEAD")
    status = _git(attempt, f"state-{when}.status", ("status", "--porcelain=v1", "--untracked-files=all"), target)
    ignored = _git(
        attempt,
        f"state-{when}.status-ignored",
        ("status", "--porcelain=v1", "--untracked-files=all", "--ignored"),
        target,
    )
    listing = _git(attempt, f"state-{when}.ls-files-stage", GIT_COMMAND[1:], target)
    return TargetState(
        head=head.removesuffix("\n"),
        status=_text(attempt, status, "the status"),
        status_ignored=_text(attempt, ignored, "the status"),
        git_index_sha256=_file_sha256(os.path.join(target, ".git", "index")),
        stage_listing=listing.stdout,
        presence={name: presence(target, name) for name in CLASS_A},
    )


def tracked_path_evidence(attempt: AttemptRun, target: str) -> Ran:
    """The evidence command ``git -C . --literal-pathspecs ls-files --cached --stage -z --`` in ``target``.

    Its stdout is :data:`EVIDENCE_FILE`; the ledger records the pinned git's path as
    ``argv[0]`` (the observation records ``git``, PREP-16).

    Raises:
        StepFailed: CAP-11.
    """
    return _git(attempt, "git-ls-files-stage", GIT_COMMAND[1:], target, stdout_name=EVIDENCE_FILE)
