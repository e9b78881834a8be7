#!/usr/bin/env bash
# Reproducible base and image builds for ablation (PRODUCT.md "Sealed environment",
# "Reproducible image"; docs/explanation/image.md). Called by the Makefile:
#
#   tools/image.sh base         mmdebstrap tarball + base image (network: DEBIAN_MIRROR, or mmdebstrap's default)
#   tools/image.sh base-import  base image from a kept tarball (BASE_TARBALL=...; offline)
#   tools/image.sh image        stage build/image-context/, buildah bud, docker load; prints the ID
#   tools/image.sh check ID     rebuild from the working tree; exit 0 when the ID matches, 3 when not
#
# Settings (environment; the Makefile passes them): EPOCH (SOURCE_DATE_EPOCH of the
# build, required), BASE_IMAGE, IMAGE, SUITE, DEBIAN_MIRROR, BASE_DIR, WHEELHOUSE,
# TOOL_PYTHON (builds the ablation wheel), IMAGE_SOURCE, BUILDAH_ROOT, IMAGE_LOCK.
#
# Every timestamp is EPOCH: mmdebstrap clamps the tarball to it, buildah
# --timestamp sets every file of every layer, the config's `created` and the
# history to it, pip writes no bytecode and the .pyc are hash-based. buildah keeps
# its own storage (vfs, chroot isolation) in BUILDAH_ROOT; the image reaches
# Docker as a docker-archive, which keeps the ID (the config digest).
set -euo pipefail
shopt -s inherit_errexit  # a failing step inside $(...) stops the script too
umask 022
cd "$(dirname "$0")/.."

die() { echo "tools/image.sh: $*" >&2; exit "${2:-1}"; }
[ -n "${EPOCH:-}" ] && [[ "$EPOCH" =~ ^[0-9]+$ ]] || die "EPOCH must be SOURCE_DATE_EPOCH (seconds), got '${EPOCH:-}'"
BASE_IMAGE=${BASE_IMAGE:-ablation-base:bookworm}
IMAGE=${IMAGE:-ablation:latest}
SUITE=${SUITE:-bookworm}
DEBIAN_MIRROR=${DEBIAN_MIRROR:-}  # empty: no mirror argument, mmdebstrap's own default for the suite
BASE_DIR=${BASE_DIR:-build/base}
WHEELHOUSE=${WHEELHOUSE:-build/wheelhouse}
TOOL_PYTHON=${TOOL_PYTHON:-.venv-dev/bin/python}
IMAGE_SOURCE=${IMAGE_SOURCE:-ablation}
IMAGE_LOCK=${IMAGE_LOCK:-requirements.lock}  # another lock only to try a lock change; the Makefile never sets it
BUILDAH_ROOT=$(realpath -m "${BUILDAH_ROOT:-build/buildah}")
CREATED=$(date -u -d "@$EPOCH" +%Y-%m-%dT%H:%M:%SZ)

buildah_() { buildah --root "$BUILDAH_ROOT/storage" --runroot "$BUILDAH_ROOT/run" --storage-driver vfs "$@"; }
need() { command -v "$1" >/dev/null || die "$1 is missing (apt-get install $2)"; }

# The base image from a root file system tarball: FROM scratch, ADD, with its
# SHA-256 and package list as labels (the image inherits them).
import_base() {  # <tarball>
  local tarball=$1 sha packages ctx made=unknown
  sha=$(sha256sum "$tarball" | cut -d' ' -f1)
  [ ! -f "$tarball.source-date-epoch" ] || made=$(cat "$tarball.source-date-epoch")
  packages=$(tar -xOf "$tarball" ./var/lib/dpkg/status | awk -F': ' '
    /^Package: / { p = $2 } /^Version: / { v = $2 } /^$/ { if (p != "") print p "=" v; p = "" }
    END { if (p != "") print p "=" v }' | LC_ALL=C sort | tr '\n' ' ' | sed 's/ $//')
  ctx=$(mktemp -d "${TMPDIR:-/tmp}/ablation-base-ctx.XXXXXX")
  ln "$tarball" "$ctx/rootfs.tar" 2>/dev/null || cp "$tarball" "$ctx/rootfs.tar"
  cat >"$ctx/Containerfile" <<EOF
FROM scratch
ADD rootfs.tar /
ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin LANG=C.UTF-8
LABEL io.ablation.base.tarball.sha256="$sha" \\
      io.ablation.base.tarball.source-date-epoch="$made" \\
      io.ablation.base.suite="$SUITE" \\
      io.ablation.base.packages="$packages" \\
      io.ablation.base.source-date-epoch="$EPOCH"
CMD ["/bin/bash"]
EOF
  buildah_ bud --quiet --isolation chroot --pull=never --timestamp "$EPOCH" \
    -f "$ctx/Containerfile" -t "$BASE_IMAGE" "$ctx" >/dev/null
  rm -rf "$ctx"
  echo "base tarball sha256 $sha"
  echo "base image $BASE_IMAGE $(buildah_ images --no-trunc --format '{{.ID}}' "$BASE_IMAGE")"
}

cmd_base() {
  need mmdebstrap mmdebstrap
  need buildah buildah
  [ "$(id -u)" = 0 ] || die "make base-image runs mmdebstrap --mode=root: run it as root"
  mkdir -p "$BASE_DIR"
  local tar="$BASE_DIR/$SUITE.tar" tmp="$BASE_DIR/.$SUITE.tar.partial" mirrors=()
  # The mirror is the caller's (DEBIAN_MIRROR: a URL, a "deb ..." line or a sources file such as
  # /etc/apt/sources.list.d/debian.sources); without one, mmdebstrap uses its own default for the
  # suite (for a stable release, with its -updates and -security suites). The tarball's
  # /etc/apt/sources.list (or sources.list.d/, for a sources file) records which.
  [ -z "$DEBIAN_MIRROR" ] || mirrors=("$DEBIAN_MIRROR")
  # --variant=minbase: essential packages and apt; the shadow file's last-change
  # field is emptied (no build day); the host's resolv.conf and hostname, which
  # mmdebstrap copies in, are removed; logs, apt lists and caches are removed by
  # mmdebstrap's cleanup. Debian's own .pyc are recompiled hash-based, because
  # buildah's --timestamp gives every .py the build's mtime, which would make
  # mtime-based .pyc stale.
  SOURCE_DATE_EPOCH=$EPOCH mmdebstrap --quiet --variant=minbase --include=python3,python3-venv \
    --mode=root --format=tar \
    --customize-hook='sed -i -E "s/^([^:]*:[^:]*):[0-9]*:/\1::/" "$1/etc/shadow"' \
    --customize-hook='for d in /usr/lib/python3.11 /usr/lib/python3/dist-packages; do if [ -d "$1$d" ]; then chroot "$1" python3 -I -m compileall -q -f -j 1 --invalidation-mode unchecked-hash "$d" >/dev/null; fi; done' \
    --customize-hook='rm -f "$1"/etc/resolv.conf "$1"/etc/hostname "$1"/etc/shadow- "$1"/etc/gshadow- "$1"/etc/passwd- "$1"/etc/group- "$1"/var/cache/ldconfig/aux-cache' \
    "$SUITE" "$tmp" "${mirrors[@]}"
  mv "$tmp" "$tar"
  echo "$EPOCH" >"$tar.source-date-epoch"
  sha256sum "$tar" | sed "s#  .*#  $SUITE.tar#" >"$tar.sha256"
  tar -xOf "$tar" ./var/lib/dpkg/status | awk -F': ' '
    /^Package: / { p = $2 } /^Version: / { v = $2 } /^$/ { if (p != "") print p "=" v; p = "" }' \
    | LC_ALL=C sort >"$tar.packages"
  echo "base tarball $tar ($(wc -l <"$tar.packages") packages, listed in $tar.packages)"
  import_base "$tar"
}

cmd_base_import() {
  need buildah buildah
  [ -f "${BASE_TARBALL:-}" ] || die "BASE_TARBALL must name a kept base tarball (e.g. $BASE_DIR/$SUITE.tar)"
  import_base "$BASE_TARBALL"
}

# build/image-context/: what the Dockerfile's RUN step mounts. Nothing else of
# the checkout reaches the build.
stage_context() {  # <context dir>
  local ctx=$1 src
  [ -f "$WHEELHOUSE/.complete" ] || die "$WHEELHOUSE is not complete; run 'make wheelhouse'"
  rm -rf "$ctx"
  mkdir -p "$ctx/wheelhouse" "$ctx/dist"
  cp "$WHEELHOUSE"/*.whl "$ctx/wheelhouse/"
  cp "$IMAGE_LOCK" "$ctx/requirements.lock"
  cp tools/seal.py "$ctx/seal.py"
  # The source tree sealing compares the installed package with (the image has no git):
  # HEAD's commit and its ablation/ tree; empty when this is no git checkout (then null).
  source_tree >"$ctx/source-tree"
  # The ablation wheel, from the working tree's package (no __pycache__), built
  # with SOURCE_DATE_EPOCH so its zip dates are fixed.
  src=$(mktemp -d "${TMPDIR:-/tmp}/ablation-wheel-src.XXXXXX")
  tar -c --exclude=__pycache__ --exclude='*.pyc' ablation pyproject.toml | tar -x -C "$src"
  SOURCE_DATE_EPOCH=$EPOCH PYTHONDONTWRITEBYTECODE=1 PIP_CONFIG_FILE=/dev/null \
    "$TOOL_PYTHON" -m pip wheel --quiet --no-deps --no-build-isolation --no-index \
    --wheel-dir "$ctx/dist" "$src" >/dev/null
  rm -rf "$src"
  chmod -R u=rwX,go=rX "$ctx"
}

# git, read-only, on this checkout only: no system or user configuration, no optional locks
# (a status never rewrites the index), no repository above this folder (as ablation-prepare reads).
GIT=$(command -v git || true)
git_read() {
  [ -n "$GIT" ] || return 127
  env -i PATH=/usr/bin:/bin LC_ALL=C.UTF-8 TZ=UTC GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null \
    GIT_OPTIONAL_LOCKS=0 GIT_TERMINAL_PROMPT=0 GIT_ATTR_NOSYSTEM=1 GIT_NO_REPLACE_OBJECTS=1 \
    GIT_CEILING_DIRECTORIES="$(dirname "$PWD")" \
    "$GIT" -c core.fsmonitor=false -c core.untrackedCache=false "$@" </dev/null
}

# For tools/seal.py --source-tree (ablation/closure/source.py): HEAD's commit id on one line, then
# `ls-tree -r -z` of its ablation/ folder. Nothing when git is missing or this folder is not the
# top of a checkout with a commit: the image then records the source revision as null.
source_tree() {
  local cdup commit
  cdup=$(git_read rev-parse --show-cdup 2>/dev/null) && [ -z "$cdup" ] || return 0
  commit=$(git_read rev-parse --verify --quiet 'HEAD^{commit}') || return 0
  printf '%s\n' "$commit"
  git_read ls-tree -r -z --full-tree "$commit" -- ablation
}

revision() {  # the commit, marked -dirty when the image's inputs differ from it
  local rev
  rev=$(git_read rev-parse --verify --quiet 'HEAD^{commit}' 2>/dev/null) || { echo unknown; return; }
  if [ -n "$(git_read status --porcelain -- ablation pyproject.toml requirements.lock tools/seal.py tools/image.sh Dockerfile)" ]; then
    rev="$rev-dirty"
  fi
  echo "$rev"
}

label() {  # <image> <label>: its value, empty when absent
  buildah_ inspect --type image --format "{{index .OCIv1.Config.Labels \"$2\"}}" "$1" 2>/dev/null | sed 's/^<no value>$//'
}

# The base's layer carries the base build's SOURCE_DATE_EPOCH. When it is not this
# build's, the base image is made again from the kept tarball (offline, seconds),
# so that the image holds no date but EPOCH.
current_base() {
  local epoch sha tar="$BASE_DIR/$SUITE.tar"
  epoch=$(label "$BASE_IMAGE" io.ablation.base.source-date-epoch)
  [ -z "$epoch" ] || [ "$epoch" = "$EPOCH" ] && return 0
  sha=$(label "$BASE_IMAGE" io.ablation.base.tarball.sha256)
  [ -f "$tar" ] && [ "$(sha256sum "$tar" | cut -d' ' -f1)" = "$sha" ] \
    || die "base image $BASE_IMAGE was made with SOURCE_DATE_EPOCH=$epoch, and its tarball (sha256 $sha) is not $tar; run 'make base-image'"
  echo "base image $BASE_IMAGE: SOURCE_DATE_EPOCH $epoch -> $EPOCH, made again from $tar" >&2
  import_base "$tar" >&2
}

build_image() {  # <tag>; prints the image ID
  local tag=$1 base_id ctx=build/image-context
  need buildah buildah
  base_id=$(buildah_ images --no-trunc --format '{{.ID}}' "$BASE_IMAGE" 2>/dev/null | head -n 1) || true
  [ -n "$base_id" ] || die "base image $BASE_IMAGE not found in $BUILDAH_ROOT; run 'make base-image' (or BASE_TARBALL=<kept tarball> make base-image)"
  current_base
  base_id=$(buildah_ images --no-trunc --format '{{.ID}}' "$BASE_IMAGE" | head -n 1)
  stage_context "$ctx"
  buildah_ bud --quiet --isolation chroot --pull=never --timestamp "$EPOCH" \
    --build-arg BASE_IMAGE="$BASE_IMAGE" --build-arg BASE_IMAGE_ID="sha256:${base_id#sha256:}" \
    --build-arg SOURCE_DATE_EPOCH="$EPOCH" --build-arg CREATED="$CREATED" \
    --build-arg REVISION="$(revision)" --build-arg SOURCE="$IMAGE_SOURCE" \
    -f Dockerfile -t "$tag" "$ctx" >/dev/null
  echo "sha256:$(buildah_ images --no-trunc --format '{{.ID}}' "$tag" | head -n 1 | sed 's/^sha256://')"
}

cmd_image() {
  local id loaded archive=build/image.docker-archive.tar
  need docker docker.io
  id=$(build_image "$IMAGE")
  rm -f "$archive"
  buildah_ push --quiet "$IMAGE" "docker-archive:$archive:$IMAGE" >/dev/null
  docker load --quiet -i "$archive" >/dev/null
  rm -f "$archive"
  loaded=$(docker image inspect --format '{{.Id}}' "$IMAGE")
  [ "$loaded" = "$id" ] || die "docker load changed the image ID: buildah $id, docker $loaded"
  echo "image $IMAGE $id (SOURCE_DATE_EPOCH=$EPOCH, created $CREATED)"
}

cmd_check() {
  local expected=${1:-} id tag=localhost/ablation-image-check:rebuilt
  [[ "$expected" =~ ^sha256:[0-9a-f]{64}$ ]] || die "usage: make image-check IMAGE_ID=sha256:<64 hex>" 2
  id=$(build_image "$tag")
  [[ "$id" =~ ^sha256:[0-9a-f]{64}$ ]] || die "image-check: the rebuild from the working tree gave no image ID; nothing compared"
  if [ "$id" = "$expected" ]; then
    buildah_ rmi "$tag" >/dev/null 2>&1 || true
    echo "image-check: MATCH: the working tree rebuilds $expected (SOURCE_DATE_EPOCH=$EPOCH)"
    return 0
  fi
  echo "image-check: MISMATCH: expected $expected, the working tree rebuilds $id (SOURCE_DATE_EPOCH=$EPOCH)"
  # Name what differs when the expected image is at hand (Docker or buildah).
  local ours=build/image-check.rebuilt.tar theirs=build/image-check.expected.tar
  rm -f "$ours" "$theirs"
  if docker image inspect "$expected" >/dev/null 2>&1 && docker save -o "$theirs" "$expected" \
     || buildah_ push --quiet "$expected" "docker-archive:$theirs" >/dev/null 2>&1; then
    buildah_ push --quiet "$tag" "docker-archive:$ours" >/dev/null
    "$TOOL_PYTHON" -I tools/imageinspect.py diff "$theirs" "$ours" || true
  else
    echo "image-check: $expected is not in Docker or buildah here, so the differences cannot be listed"
  fi
  rm -f "$ours" "$theirs"
  buildah_ rmi "$tag" >/dev/null 2>&1 || true
  return 3
}

case "${1:-}" in
  base) cmd_base ;;
  base-import) cmd_base_import ;;
  image) cmd_image ;;
  check) shift; cmd_check "$@" ;;
  *) die "usage: tools/image.sh base|base-import|image|check <image id>" 2 ;;
esac
