#!/usr/bin/env bash
# attnrank setup: install the Debian 12 packages, build, and (optionally) test.
#
#   ./setup.sh          install what is missing, build into build/
#   ./setup.sh test     also build with AddressSanitizer + UBSan into build-asan/, with
#                       MPI into build-mpi/ and with clang's libFuzzer into build-fuzz/;
#                       run every test suite in the first two, the MPI suite and the
#                       fuzz suite in the others; end with "N passed, N failed"
#
# Needs root (or sudo) only when a package is missing.
set -euo pipefail
cd "$(dirname "$0")"

PACKAGES=(
  meson ninja-build pkg-config gcc libc6-dev git
  libgsl-dev libopenblas-dev liblapacke-dev libhdf5-dev hdf5-tools
  libconfig-dev librandom123-dev libmuparser-dev libopenmpi-dev openmpi-bin
  python3-numpy python3-h5py python3-matplotlib
)
# Only the test suite needs these: it checks that xarray reads the result files, that
# the HTML report renders in headless Chromium, runs memcheck, and fuzzes with libFuzzer
# (a clang build).
TEST_PACKAGES=(python3-xarray python3-h5netcdf chromium valgrind clang libclang-rt-14-dev libomp-14-dev)
JOBS=${JOBS:-2}

install_packages() { # install_packages PACKAGE...
  local missing=()
  for p in "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing+=("$p")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  echo "setup: installing ${missing[*]}" >&2
  local sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -q
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q --no-install-recommends "${missing[@]}"
}

build() { # build DIR [meson options...]
  local dir=$1
  shift
  if [ ! -f "$dir/build.ninja" ]; then
    meson setup "$dir" "$@" >"$dir.setup.log" 2>&1 || { cat "$dir.setup.log" >&2; return 1; }
    rm -f "$dir.setup.log"
  fi
  ninja -C "$dir" -j "$JOBS"
}

# Counts this build's results from meson's JSON test log.
count_results() {
  /usr/bin/python3 - "$1/meson-logs/testlog.json" <<'PY'
import json, sys
passed = failed = skipped = 0
try:
    for line in open(sys.argv[1]):
        result = json.loads(line)["result"]
        if result in ("OK", "EXPECTEDFAIL"):
            passed += 1
        elif result == "SKIP":
            skipped += 1
        else:
            failed += 1
except OSError:
    failed += 1
print(passed, failed, skipped)
PY
}

run_tests() {
  local total_pass=0 total_fail=0 total_skip=0 dir p f k
  build build
  build build-asan -Db_sanitize=address,undefined -Db_lundef=false -Dbuildtype=debugoptimized
  build build-mpi -Dmpi=true
  CC=clang build build-fuzz -Dfuzz=true -Dtests=false -Db_sanitize=address,undefined -Db_lundef=false \
    -Dbuildtype=debugoptimized
  # Open MPI refuses root unless told; CI runs as root.
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
  for dir in build build-asan build-mpi build-fuzz; do
    echo "== meson test in $dir" >&2
    local suites=()
    if [ "$dir" = build-asan ]; then
      export ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
    elif [ "$dir" = build-mpi ]; then
      unset ASAN_OPTIONS UBSAN_OPTIONS
      suites=(--suite mpi) # the other suites run the same code as build/
    elif [ "$dir" = build-fuzz ]; then
      suites=(--suite fuzz) # a minute per target, crash inputs kept in tests/fuzz/regressions
    fi
    meson test -C "$dir" "${suites[@]}" --num-processes "$JOBS" --print-errorlogs || true
    read -r p f k < <(count_results "$dir")
    echo "$dir: $p passed, $f failed, $k skipped" >&2
    total_pass=$((total_pass + p))
    total_fail=$((total_fail + f))
    total_skip=$((total_skip + k))
  done
  echo "$total_pass passed, $total_fail failed, $total_skip skipped"
  [ "$total_fail" -eq 0 ]
}

case "${1:-build}" in
  build)
    install_packages "${PACKAGES[@]}"
    build build && echo "setup: built build/attnrank; try: build/attnrank verify" >&2
    ;;
  test)
    install_packages "${PACKAGES[@]}" "${TEST_PACKAGES[@]}"
    run_tests
    ;;
  *) echo "usage: $0 [build|test]" >&2; exit 2 ;;
esac
