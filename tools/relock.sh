#!/usr/bin/env bash
# Re-lock requirements.in -> requirements.lock with the pinned pip-compile of .venv
# (PRODUCT.md "Sealed environment"); needs PyPI.
#
#   tools/relock.sh             write requirements.lock (keeps existing pins; UPGRADE=1 upgrades all)
#   tools/relock.sh --check     re-compile into a scratch folder; fail if it differs from the committed lock
#
# pip-compile runs with this machine's pip configuration switched off
# (PIP_CONFIG_FILE=/dev/null, no PIP_* index variables), so the lock depends on
# requirements.in and PyPI only, never on a local mirror or wheel folder.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
pip_compile=${RELOCK_PIP_COMPILE:-$root/.venv/bin/pip-compile}
mode=write
case "${1:-}" in
  --check) mode=check ;;
  "") ;;
  *) echo "usage: tools/relock.sh [--check]" >&2; exit 2 ;;
esac
if [ ! -x "$pip_compile" ]; then
  echo "relock: $pip_compile not found; run 'make test' (or any target that builds .venv) first" >&2
  exit 2
fi
flags=(--quiet --generate-hashes --allow-unsafe --strip-extras --no-emit-index-url --no-emit-find-links)
[ "${UPGRADE:-0}" = 1 ] && flags+=(--upgrade)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp requirements.in requirements.lock "$work"/
(
  cd "$work"
  env -u PIP_FIND_LINKS -u PIP_INDEX_URL -u PIP_EXTRA_INDEX_URL -u PIP_CONSTRAINT \
    PIP_CONFIG_FILE=/dev/null \
    "$pip_compile" "${flags[@]}" --output-file=requirements.lock requirements.in
)
if [ "$mode" = check ]; then
  if ! diff -u requirements.lock "$work/requirements.lock"; then
    echo "relock: requirements.lock is not what pip-compile makes of requirements.in; run 'make lock' and commit both" >&2
    exit 1
  fi
  echo "relock: requirements.lock is what pip-compile makes of requirements.in"
else
  cp "$work/requirements.lock" requirements.lock
  echo "relock: wrote requirements.lock"
fi
