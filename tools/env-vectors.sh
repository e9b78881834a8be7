#!/usr/bin/env bash
# The environment vectors of issue 18 against the sealed image (docs/explanation/threat-model.md):
#
#   tools/env-vectors.sh IMAGE_ID WORK
#
# 1 OPENSSL_CONF naming a provider payload (-e), the system's openssl.cnf and cryptography's
#   OPENSSLDIR replaced (-v): inert.
# 2 LD_LIBRARY_PATH naming a stand-in libcrypto.so.3 that hides itself (-e), /etc/ld.so.preload (-v):
#   refused.
# 3 a sitecustomize nobody lists, in derived images: a module Debian's sitecustomize imports
#   (lib-dynload/apport_python_hook.py), a sitecustomize package in the standard library, and
#   /usr/lib/python311.zip: refused, and tools/closure-check.sh run inside names each.
# 5 a watcher inside the container swapping ablation's gates .pyc while the evaluator runs: each
#   run exits 0 with the clean result, or 3.
# 6 bind mounts (-v) over a standard-library .pyc and over a package file: refused.
#
# The payload is tests/closure/payload.c (it makes every Fraction >= true, so gate G4b passes),
# built here with gcc. "Refused" is exit 3 with one line on stderr; "inert" is exit 0 with a
# results file byte for byte the clean run's. Exit 0 when every vector is refused or inert as
# said above, 1 otherwise. Needs docker (a running engine), gcc and the host's .venv (python 3.11).
set -euo pipefail
cd "$(dirname "$0")/.."
image=${1:?usage: tools/env-vectors.sh IMAGE_ID WORK}
work=${2:?usage: tools/env-vectors.sh IMAGE_ID WORK}
fail() { echo "env-vectors: FAILED: $*" >&2; exit 1; }
command -v gcc >/dev/null || fail "gcc is needed to build the loader payloads (apt-get install gcc)"
example=examples/prepared-input.json
example_sha=$(cut -d' ' -f1 "$example.sha256")
stdlib=/usr/lib/python3.11
site=/opt/ablation/lib/python3.11/site-packages

rm -rf "$work"
mkdir -p "$work/payload" "$work/out" "$work/check"
chmod 0777 "$work/out"
out=$work/out

# The payloads: a stand-in libcrypto.so.3 that forwards every symbol to the image's own (its DT_NEEDED
# is that absolute path), and the same code as a plain library (OpenSSL provider module, ld.so.preload).
real=/usr/lib/x86_64-linux-gnu/libcrypto.so.3
gcc -shared -fPIC -x c /dev/null -o "$work/forward.so" "-Wl,-soname,$real"
gcc -shared -fPIC -O1 '-DMARKER="/out/env-marker"' -o "$work/payload/libcrypto.so.3" -Wl,-soname,libcrypto.so.3 \
  tests/closure/payload.c -Wl,--no-as-needed "$work/forward.so" -ldl
gcc -shared -fPIC -O1 '-DMARKER="/out/env-marker"' -o "$work/payload/payload.so" tests/closure/payload.c -ldl
printf '%s\n' 'openssl_conf = attack' '[attack]' 'providers = attack_providers' '[attack_providers]' \
  'attack = attack_provider' '[attack_provider]' 'module = /payload/payload.so' 'activate = 1' >"$work/payload/openssl.cnf"
echo /payload/payload.so >"$work/payload/ld.so.preload"
chmod -R a+rX "$work/payload"

in_image() {  # <docker run arguments before the image>... -- <command arguments>: run the evaluator
  local before=() arg
  while [ "$#" -gt 0 ]; do arg=$1; shift; [ "$arg" = -- ] && break; before+=("$arg"); done
  docker run --rm --network none --read-only -v "$(realpath "$example"):/in/example.json:ro" -v "$out:/out" \
    -v "$work/payload:/payload:ro" "${before[@]}" "$image" "$@"
}
run_args() { echo run --input /in/example.json --input-sha256 "$example_sha" --output "/out/$1"; }

in_image -- $(run_args clean.json) >/dev/null
[ "$(python3 -c 'import json,sys; print(next(g["status"] for g in json.load(open(sys.argv[1]))["gateAssessment"]["gates"] if g["id"] == "G4b"))' "$out/clean.json")" = fail ] \
  || fail "G4b does not fail on the example, so the payload would show nothing"

expect() {  # <vector> <refused|inert> <results name> <docker run arguments>... : one vector, one run
  local vector=$1 expected=$2 name=$3 status
  shift 3
  rm -f "$out/env-marker"
  set +e
  in_image "$@" -- $(run_args "$name") >/dev/null 2>"$work/$name.err"
  status=$?
  set -e
  case "$expected:$status" in
    refused:3) [ "$(wc -l <"$work/$name.err")" = 1 ] || fail "vector $vector: more than one line: $(cat "$work/$name.err")"
               echo "env-vectors: vector $vector refused: $(cat "$work/$name.err")" ;;
    inert:0) cmp -s "$out/clean.json" "$out/$name" || fail "vector $vector: exit 0, but the results file differs"
             [ ! -e "$out/env-marker" ] || fail "vector $vector: the payload was loaded: $(tr '\n' ' ' <"$out/env-marker")"
             echo "env-vectors: vector $vector inert: results byte-identical to the clean run, payload never loaded" ;;
    *) cat "$work/$name.err" >&2; fail "vector $vector: exit $status, expected $expected" ;;
  esac
}

# --- 1: OpenSSL. The control first: the image's interpreter, started as an attacker would, runs it.
control=$(docker run --rm --network none --read-only -v "$work/payload:/payload:ro" -v "$out:/out" \
  -e OPENSSL_CONF=/payload/openssl.cnf --entrypoint /opt/ablation/bin/python "$image" -I -c \
  'import hashlib, fractions; print(fractions.Fraction(1, 10) >= fractions.Fraction(1, 5))')
[ "$control" = True ] || fail "vector 1: the provider payload does not work in the image ($control)"
echo "env-vectors: vector 1 control: python -I with OPENSSL_CONF runs the payload (Fraction(1, 10) >= Fraction(1, 5) is $control)"
expect 1 inert openssl-conf.json -e OPENSSL_CONF=/payload/openssl.cnf
expect 1 inert openssl-system.json -v "$work/payload/openssl.cnf:/etc/ssl/openssl.cnf:ro" \
  -v "$work/payload:/opt/pyca/cryptography/openssl:ro"

# --- 2: the loader.
expect 2 refused ld-library-path.json -e LD_LIBRARY_PATH=/payload
expect 2 refused ld-so-preload.json -v "$work/payload/ld.so.preload:/etc/ld.so.preload:ro"

# --- 6: bind mounts over the closure.
cid=$(docker create "$image")
docker cp "$cid:$stdlib/fractions.py" "$work/fractions.py"
docker rm "$cid" >/dev/null
printf '\nFraction.__ge__ = lambda a, b: True\n' >>"$work/fractions.py"
.venv/bin/python -I -c 'import py_compile, sys; py_compile.compile(sys.argv[1], cfile=sys.argv[2], dfile="fractions.py", doraise=True, invalidation_mode=py_compile.PycInvalidationMode.UNCHECKED_HASH)' \
  "$work/fractions.py" "$work/fractions.pyc"
chmod a+r "$work/fractions.pyc" "$work/fractions.py"
expect 6 refused mount-stdlib.json -v "$work/fractions.pyc:$stdlib/__pycache__/fractions.cpython-311.pyc:ro"
expect 6 refused mount-package.json -v "$work/fractions.py:$site/ablation/gates.py:ro"

# --- 3: a sitecustomize nobody lists, in derived images; closure-check names each from outside.
hiding='import fractions, sys\nfractions.Fraction.__ge__ = lambda a, b: True\nsys.modules.pop(__name__, None)\n'
cp tools/closure-check.sh "$work/check/closure-check.sh"
chmod a+rx "$work/check" "$work/check/closure-check.sh"
closure_check() {  # <image>: tools/closure-check.sh inside it; prints its output, returns its status
  docker run --rm --network none --read-only --tmpfs /tmp -v "$work/check:/check:ro" --entrypoint bash "$1" \
    /check/closure-check.sh /opt/ablation
}
closure_check "$image" >"$work/check-clean.log" || { cat "$work/check-clean.log"; fail "closure-check fails on the clean image"; }
echo "env-vectors: closure-check in the clean image: $(cat "$work/check-clean.log")"
for form in apport package zip; do
  mkdir -p "$work/derived-$form"
  case "$form" in
    apport) step="printf '$hiding' >$stdlib/lib-dynload/apport_python_hook.py"; named=$stdlib/lib-dynload/apport_python_hook.py ;;
    package) step="mkdir $stdlib/sitecustomize && printf '$hiding' >$stdlib/sitecustomize/__init__.py"; named=$stdlib/sitecustomize ;;
    zip) step="cd /tmp && printf '$hiding' >sitecustomize.py && python3 -I -m zipfile -c /usr/lib/python311.zip sitecustomize.py"; named=/usr/lib/python311.zip ;;
  esac
  printf 'FROM %s\nUSER 0\nRUN %s\nUSER 10001:10001\n' "$image" "$step" >"$work/derived-$form/Dockerfile"
  docker build --quiet --network none -t "ablation-env-vector-3-$form:latest" "$work/derived-$form" >/dev/null
  image_was=$image
  image="ablation-env-vector-3-$form:latest"
  expect 3 refused "sitecustomize-$form.json"
  set +e
  closure_check "$image" >"$work/check-$form.log"
  status=$?
  set -e
  image=$image_was
  docker image rm "ablation-env-vector-3-$form:latest" >/dev/null
  [ "$status" = 1 ] && grep -qF "$named" "$work/check-$form.log" \
    || { cat "$work/check-$form.log"; fail "vector 3 ($form): closure-check did not name $named"; }
  echo "env-vectors: vector 3 ($form): closure-check names it: $(grep -F "$named" "$work/check-$form.log" | head -n 1)"
done

# --- 5: a watcher in the container swaps ablation's gates .pyc (edited: every Fraction >= true) in and out.
cid=$(docker create "$image")
docker cp "$cid:$site/ablation/gates.py" "$work/gates.py"
docker rm "$cid" >/dev/null
printf '\nimport fractions as _f\n_f.Fraction.__ge__ = lambda a, b: True\n' >>"$work/gates.py"
.venv/bin/python -I -c 'import py_compile, sys; py_compile.compile(sys.argv[1], cfile=sys.argv[2], dfile="ablation/gates.py", doraise=True, invalidation_mode=py_compile.PycInvalidationMode.UNCHECKED_HASH)' \
  "$work/gates.py" "$work/payload/gates.pyc"
chmod a+r "$work/payload/gates.pyc"
pyc=$site/ablation/__pycache__/gates.cpython-311.pyc
docker run --rm --network none --user 0 -v "$(realpath "$example"):/in/example.json:ro" -v "$out:/out" \
  -v "$work/payload:/payload:ro" --entrypoint sh "$image" -c "
    cp $pyc /tmp/gates.orig
    (while [ ! -e /tmp/stop ]; do cp /payload/gates.pyc $pyc.new; mv $pyc.new $pyc; cp /tmp/gates.orig $pyc.new; mv $pyc.new $pyc; done) &
    for i in 1 2 3 4 5 6; do
      /opt/ablation/bin/ablation $(run_args race-\$i.json) >/dev/null 2>/out/race-\$i.err; echo \$? >/out/race-\$i.status
    done
    touch /tmp/stop; wait" >/dev/null
for i in 1 2 3 4 5 6; do
  status=$(cat "$out/race-$i.status")
  if [ "$status" = 0 ]; then
    cmp -s "$out/clean.json" "$out/race-$i.json" || fail "vector 5: run $i exited 0 with another result"
    echo "env-vectors: vector 5 run $i: exit 0, results byte-identical to the clean run"
  elif [ "$status" = 3 ] && [ "$(wc -l <"$out/race-$i.err")" = 1 ]; then
    echo "env-vectors: vector 5 run $i: refused: $(cat "$out/race-$i.err")"
  else
    cat "$out/race-$i.err" >&2; fail "vector 5: run $i exited $status"
  fi
done
echo "env-vectors: every vector refused or inert"
