#!/usr/bin/env bash
# Generate the two locales the environment tests use (tests/closure/test_env_locale.py, issue 18
# vector 8): en_US.ISO-8859-1 (not UTF-8) and tr_TR.UTF-8. As separate folders in /usr/lib/locale
# (localedef --no-archive), not in locale-archive: a locale-archive would be mapped into every
# process, which the address-space limits of tests/test_limits.py do not allow for.
# Needs root and Debian's `locales` package (its /usr/share/i18n sources). Exit 0 when both exist.
set -euo pipefail
have() { locale -a 2>/dev/null | grep -qx "$1"; }
for spec in en_US:ISO-8859-1:en_US.iso88591 tr_TR:UTF-8:tr_TR.utf8; do
  IFS=: read -r source charmap name <<<"$spec"
  have "$name" && continue
  [ -f "/usr/share/i18n/locales/$source" ] || { echo "locales: /usr/share/i18n/locales/$source missing (apt-get install locales)" >&2; exit 1; }
  localedef --no-archive -i "$source" -f "$charmap" "$source.$charmap"
  have "$name" || { echo "locales: localedef did not make $name" >&2; exit 1; }
done
echo "locales: en_US.iso88591 and tr_TR.utf8 are there"
