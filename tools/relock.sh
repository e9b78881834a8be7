#!/usr/bin/env bash
# Re-lock both requirement files with the pinned pip-compile of .venv-dev
# (PRODUCT.md "Sealed environment"); needs PyPI.
#
#   requirements.in      -> requirements.lock      the sealed runtime
#   requirements-dev.in  -> requirements-dev.lock  the development environment,
#                                                  constrained by requirements.lock
#
#   tools/relock.sh             write both locks (keeps existing pins; UPGRADE=1 upgrades all)
#   tools/relock.sh --check     re-compile into a scratch folder; fail if either differs from the committed lock
#
# pip-compile runs with this machine's pip configuration switched off
# (PIP_CONFIG_FILE=/dev/null, no PIP_* index variables), so the locks depend on
# the .in files and PyPI only, never on a local mirror or wheel folder.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
pip_compile=${RELOCK_PIP_COMPILE:-$root/.venv-dev/bin/pip-compile}
mode=write
case "${1:-}" in
  --check) mode=check ;;
  "") ;;
  *) echo "usage: tools/relock.sh [--check]" >&2; exit 2 ;;
esac
if [ ! -x "$pip_compile" ]; then
  echo "relock: $pip_compile not found; run 'make test' (or 'make dev-venv') first" >&2
  exit 2
fi
flags=(--quiet --generate-hashes --allow-unsafe --strip-extras --no-emit-index-url --no-emit-find-links)
[ "${UPGRADE:-0}" = 1 ] && flags+=(--upgrade)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp requirements.in requirements.lock requirements-dev.in requirements-dev.lock "$work"/
(
  cd "$work"
  for name in requirements requirements-dev; do
    env -u PIP_FIND_LINKS -u PIP_INDEX_URL -u PIP_EXTRA_INDEX_URL -u PIP_CONSTRAINT \
      PIP_CONFIG_FILE=/dev/null \
      "$pip_compile" "${flags[@]}" --output-file="$name.lock" "$name.in"
  done
)
status=0
for lock in requirements.lock requirements-dev.lock; do
  if [ "$mode" = check ]; then
    if diff -u "$lock" "$work/$lock"; then
      echo "relock: $lock is what pip-compile makes of ${lock%.lock}.in"
    else
      echo "relock: $lock is not what pip-compile makes of ${lock%.lock}.in; run 'make lock' and commit the .in files and both locks" >&2
      status=1
    fi
  else
    cp "$work/$lock" "$lock"
    echo "relock: wrote $lock"
  fi
done
exit "$status"
