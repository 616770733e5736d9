#!/usr/bin/env bash
# run_fuzz.sh FUZZER TARGET SOURCE_ROOT SECONDS
# Replays every saved crash input of TARGET (tests/fuzz/regressions/TARGET/), then fuzzes
# for SECONDS from the seed corpus (the specs under runs/; for the store they become the
# stored spec of a result file; for expressions, a few formulas). A new crash input is
# copied into regressions/ and fails the test.
set -uo pipefail
fuzzer=$1 target=$2 root=$3 seconds=$4
regressions="$root/tests/fuzz/regressions/$target"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=1
export LSAN_OPTIONS=suppressions=$root/tests/fuzz/lsan.supp:print_suppressions=0

if compgen -G "$regressions/*" >/dev/null; then
  "$fuzzer" "$regressions"/* || { echo "a saved crash input of $target fails again"; exit 1; }
fi

mkdir -p "$work/corpus"
options=()
if [ "$target" = spec ]; then
  cp "$root"/runs/*.cfg "$root"/runs/cluster/*.cfg "$work/corpus/"
  # includes (fuzz_spec.c makes the files they name) and an override after a NUL byte
  printf 'seed = 1;\nexperiments = (\n@include "a.cfg"\n);\n' >"$work/corpus/include"
  printf 'seed = 1;\n @include "self.cfg"\n@include "open.cfg"\n@include "empty.cfg"\n@include "sub"\n' \
    >"$work/corpus/include-bad"
  printf 'seed = 1;\nexperiments = (\n@include "a.cfg"\n);\n\000a.n=[8, 4294967304]; seed=2' >"$work/corpus/set"
elif [ "$target" = expression ]; then # formulas as conjectures write them, one a file
  i=0
  for formula in '0.6 * n + 2' 'd_h >= 4' '2' '(1 - 1/e) * n + 1' 'sqrt(n) / d_h' \
    'n > 8 && d_h <= 4 ? 1 : 0' 'min(n, 2 * d_h, 64) - max(log2(n), ln(pi))' \
    'floor(0.5 * n) + ceil(rho) * sign(-sigma) + round(tau^-1)' 'abs(d - n) / log10(100) <= exp(1)' \
    'n != 4 || (d_h == 2 && weights)' 'x(1, 2), "s" = 1e999'; do
    printf '%s' "$formula" >"$work/corpus/formula-$i"
    i=$((i + 1))
  done
  # muparser has no coverage instrumentation: its tokens guide the mutations instead;
  # inputs reach past the 1000-character limit
  options=(-dict="$root/tests/fuzz/expression.dict" -max_len=1100)
else # four bytes (format version, stale or fresh hash), then a spec as the stored one
  for cfg in "$root"/runs/*.cfg "$root"/runs/cluster/*.cfg; do
    { printf '\002\001\000\000'; cat "$cfg"; } >"$work/corpus/$(basename "$cfg")"
  done
  # layout edits (first byte >= 0x80): count, then (kind, target, a, b) each, then text
  printf '\200\000\001\005\000\000' >"$work/corpus/layout-retype"
  printf '\200\000\001\005\001\000' >"$work/corpus/layout-transpose"
  printf '\200\000\001\005\002\020' >"$work/corpus/layout-grow"
  printf '\200\000\000\007\000\000' >"$work/corpus/layout-delete"
  printf '\200\001\002\003\000\002\001\011\003\000' >"$work/corpus/layout-shard-text"
  printf '\200\000\002\000\005\001' >"$work/corpus/layout-format-array"
  printf '\200\000\003\000\000\000\001\002\001' >"$work/corpus/layout-done-values"
  printf '\200\002\001\040\003\167\002\001\000\000\000\003\000\000/1' >"$work/corpus/layout-mixed"
fi

"$fuzzer" -max_total_time="$seconds" -timeout=20 -rss_limit_mb=2048 -artifact_prefix="$work/" \
  -print_final_stats=1 "${options[@]}" "$work/corpus" 2>"$work/log"
status=$?
grep -E "stat::number_of_executed_units|stat::peak_rss_mb|cov:" "$work/log" | tail -3
if [ $status -ne 0 ]; then
  mkdir -p "$regressions"
  for crash in "$work"/crash-* "$work"/leak-* "$work"/timeout-*; do
    [ -e "$crash" ] && cp "$crash" "$regressions/" && echo "new crash input saved: $regressions/$(basename "$crash")"
  done
  tail -40 "$work/log"
  exit 1
fi
echo "fuzz_$target: no crash in $seconds s"
