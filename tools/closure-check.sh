#!/usr/bin/env bash
# Check a sealed environment against its closure manifest from OUTSIDE the evaluator
# (docs/explanation/threat-model.md): awk reads ablation/CLOSURE.json, coreutils' sha256sum
# hashes every file of every layer, find lists every folder; no Python runs, so an edit written
# to hide itself from the in-process check (it restores the file while the evaluator runs and
# writes it back afterwards, or removes itself from sys.modules) is seen here between runs.
#
#   tools/closure-check.sh [ENV]      ENV: the sealed environment (default .venv; /opt/ablation in the image)
#   STDLIB=<folder>                   the standard library folder, when it is not <home>/../lib/pythonX.Y
#
# Checks: every hashed file of the four layers; the console script and pyvenv.cfg with the
# install folder replaced by {prefix}; the whole trees of site-packages, the standard library
# and the environment's folder: no file or folder the manifest does not list (its layers and
# its "trees"), and in the standard library none missing; every folder, file and link of its
# "trees" still one (a folder is not a link to a copy, a file not a folder); no path of the manifest's "absent"
# list (python311.zip) exists. Exit 0 when all hold, 1 otherwise (one line per problem), 2 for usage.
set -euo pipefail
export LC_ALL=C
env_dir=${1:-.venv}
[ -d "$env_dir" ] || { echo "closure-check: $env_dir is not a folder" >&2; exit 2; }
prefix_given=$(cd "$env_dir" && pwd -L)
prefix_real=$(cd "$env_dir" && pwd -P)
site=$(find "$env_dir/lib" -mindepth 2 -maxdepth 2 -type d -name site-packages -path '*/python3.*/*' | head -n 1)
manifest=$site/ablation/CLOSURE.json
[ -f "$manifest" ] || { echo "closure-check: no closure manifest in $env_dir (not sealed)" >&2; exit 2; }
config=$env_dir/pyvenv.cfg
if [ -z "${STDLIB:-}" ]; then
  home=$(sed -n 's/^home *= *//p' "$config")
  version=$(sed -n 's/^version *= *\([0-9]*\.[0-9]*\).*/\1/p' "$config")
  STDLIB=$(dirname "$home")/lib/python$version
fi
[ -d "$STDLIB" ] || { echo "closure-check: standard library folder $STDLIB not found; set STDLIB=" >&2; exit 2; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# 1. "<hex>  <absolute path>" for every hashed file; "-  <layer> <path>" for an owned, unhashed one.
awk -v site="$site" -v stdlib="$STDLIB" -v out="$work" '
  /^  "(package|dependencies|stdlib|interpreter)": \[/ { split($1, a, "\""); layer = a[2]; next }
  /^  \]/ { layer = ""; next }
  layer != "" {
    line = $0
    sub(/^  \["/, "", line); sub(/\],?$/, "", line)
    n = split(line, parts, "\", ")
    path = parts[1]; sha = parts[2]; gsub(/"/, "", sha)
    if (path ~ /\\/) { print "closure-check: " layer ": an escaped file name, check it by hand: " path > (out "/escaped"); next }
    root = (layer == "package" || layer == "dependencies") ? site "/" : (layer == "stdlib" ? stdlib "/" : "/")
    if (layer == "package" || layer == "dependencies") print path > (out "/site-listed")
    if (layer == "stdlib") print path > (out "/stdlib-listed")
    if (sha != "null") print sha "  " root path > (out "/sums")
  }
  /^ "trees": \[$/ { intree = 1; next }
  intree && /^ \]/ { intree = 0; next }
  intree {
    line = $0
    sub(/^  \["/, "", line); sub(/"\],?$/, "", line)
    n = split(line, f, "\", \"")
    if (line ~ /\\/) { print "closure-check: trees: an escaped file name, check it by hand: " line > (out "/escaped"); next }
    print f[2] > (out "/tree-" f[1]); if (f[3] == "skip") print f[2] > (out "/skip-" f[1]); else print f[3] " " f[2] > (out "/kinds-" f[1])
    next
  }
  /^ "absent": / {
    line = $0; sub(/^ "absent": \[/, "", line); sub(/\],?$/, "", line)
    n = split(line, entries, ", ")
    for (i = 1; i <= n; i++) { gsub(/"/, "", entries[i]); if (entries[i] != "") print "/" entries[i] > (out "/absent") }
  }
  /^ "local": / {
    line = $0; sub(/^ "local": \[\[?/, "", line); sub(/,$/, "", line); sub(/\]\]?$/, "", line)
    n = split(line, entries, /\], \[/)
    for (i = 1; i <= n; i++) { split(entries[i], f, "\", \""); gsub(/"/, "", f[1]); gsub(/"/, "", f[3]); print f[3] "  " f[1] > (out "/local") }
  }
' "$manifest"

problems=0
if [ -s "$work/escaped" ]; then cat "$work/escaped"; problems=1; fi
checked=$(wc -l <"$work/sums")
if ! sha256sum --check --quiet --strict "$work/sums" >"$work/failed" 2>&1; then
  sed 's/^/closure-check: /' "$work/failed"
  problems=1
fi

# 2. The two files that name the install folder, compared with it replaced by {prefix}.
escape() { printf '%s' "$1" | sed 's/[][\.*^$/|]/\\&/g'; }
if [ -f "$work/local" ]; then
  while read -r sha name; do
    file=$env_dir/$name
    if [ ! -f "$file" ]; then echo "closure-check: $name is missing"; problems=1; continue; fi
    found=$(if [ "$name" = pyvenv.cfg ]; then grep -v '^command =' "$file" || true; else cat "$file"; fi \
      | sed -e "s|$(escape "$prefix_real")|{prefix}|g" -e "s|$(escape "$prefix_given")|{prefix}|g" | sha256sum | cut -d' ' -f1)
    [ "$found" = "$sha" ] || { echo "closure-check: $name differs from the manifest (install folder normalised)"; problems=1; }
  done <"$work/local"
fi

# 3. The whole trees: every entry below site-packages, the standard library and the environment's
#    folder is a layer file or a "trees" entry; folders marked "skip" are listed but not entered.
tree_check() {  # <root name> <folder> <listed files> <report missing: 0|1> [<how lines name the folder>]
  local name=$1 folder=$2 listed=$3 missing=$4 shown=${5:-$2} prune=() entry
  touch "$work/tree-$name" "$work/skip-$name"
  while IFS= read -r entry; do prune+=(-path "./$entry" -prune -o); done <"$work/skip-$name"
  (cd "$folder" && find . -mindepth 1 "${prune[@]}" -print | sed 's|^\./||'; cat "$work/skip-$name") | sort -u >"$work/present-$name"
  sort -u "$listed" "$work/tree-$name" >"$work/expected-$name"
  comm -23 "$work/present-$name" "$work/expected-$name" | sed "s|^|closure-check: $shown/|; s|\$| is not in the manifest|" >>"$work/extra"
  if [ "$missing" = 1 ]; then
    comm -13 "$work/present-$name" "$work/expected-$name" | sed "s|^|closure-check: $shown/|; s|\$| is missing|" >>"$work/extra"
  fi
}
: >"$work/extra"
{ cat "$work/site-listed"; echo ablation/CLOSURE.json; } >"$work/site-files"
tree_check site "$site" "$work/site-files" 0 site-packages
touch "$work/stdlib-listed"
tree_check stdlib "$STDLIB" "$work/stdlib-listed" 1
if [ -s "$work/tree-prefix" ]; then
  cut -d' ' -f3- "$work/local" >"$work/prefix-files"
  tree_check prefix "$env_dir" "$work/prefix-files" 0
fi
# 4. Each recorded folder, file and link is still one (not a link to a copy, a file, a folder no listing enters).
kind_check() {  # <root name> <folder> [<how lines name the folder>]
  local name=$1 folder=$2 shown=${3:-$2} kind entry found
  [ -f "$work/kinds-$name" ] || return 0
  while IFS=' ' read -r kind entry; do
    if [ -L "$folder/$entry" ]; then found=link; elif [ -d "$folder/$entry" ]; then found=dir
    elif [ -f "$folder/$entry" ]; then found=file; elif [ -e "$folder/$entry" ]; then found=other; else continue; fi
    [ "$found" = "$kind" ] || echo "closure-check: $shown/$entry is a $found; the manifest records a $kind" >>"$work/extra"
  done <"$work/kinds-$name"
}
kind_check site "$site" site-packages
kind_check stdlib "$STDLIB"
kind_check prefix "$env_dir"
if [ -f "$work/absent" ]; then
  while IFS= read -r entry; do
    if [ -e "$entry" ] || [ -L "$entry" ]; then echo "closure-check: $entry exists, and was absent when the environment was sealed" >>"$work/extra"; fi
  done <"$work/absent"
fi
if [ -s "$work/extra" ]; then cat "$work/extra"; problems=1; fi

if [ "$problems" = 0 ]; then
  echo "closure-check: $env_dir matches its closure manifest ($checked files hashed, standard library $STDLIB)"
fi
exit "$problems"
