#!/usr/bin/env bash
# A short fuzzing run of every cargo-fuzz target in fuzz/ (the delivery parameter parser, the stored-path
# sanitizers, image decoding through the render pipeline, structured render requests), one after the other:
#
#   scripts/fuzz.sh                           # params, stored_path, decode, render: 60 s each
#   FUZZ_SECONDS=600 scripts/fuzz.sh decode   # one target, longer
#
# 1. Installs cargo-fuzz (`cargo install cargo-fuzz --locked`) if it is missing.
# 2. Builds the targets: the stable toolchain with RUSTC_BOOTSTRAP=1, because cargo-fuzz passes nightly-only
#    flags (-Zsanitizer=…). AddressSanitizer by default; it instruments our Rust and the Rust decoders, not
#    the C libraries (libjpeg-turbo, libaom, libwebp), which cmake/cc build without it either way.
#    Release mode with overflow checks (`-O`, RUSTFLAGS=-Coverflow-checks), not cargo-fuzz's default of debug
#    assertions: avif-parse `debug_assert`s on a malformed box before returning the error, which every
#    profile of ours turns off (the root Cargo.toml), so with them on the first damaged AVIF stops the run.
#    The first build compiles those C libraries again, but for libaom and libjpeg-turbo when the test build
#    has them to link (below); later ones reuse fuzz/target/.
# 3. Runs each target for FUZZ_SECONDS on a copy of its checked-in corpus (fuzz/corpus/<target>), so a
#    run never changes the repository, with one libFuzzer process (-rss_limit_mb=2048 -timeout=10); as many
#    targets at once as there are cores (FUZZ_JOBS).
# 4. Exits non-zero if any target crashed, panicked, timed out or ran out of memory, after printing the
#    input libFuzzer saved (fuzz/artifacts/<target>/, git-ignored) and the command that reproduces it.
#
# Environment: FUZZ_SECONDS (per target, default 60), FUZZ_JOBS (targets at once, default one per core),
# FUZZ_INSTALL_ONLY (set: install cargo-fuzz if missing and stop; .ci/run does so beside the test build),
# FUZZ_BUILD_ONLY (set: build the targets and stop; .ci/run builds them beside the tests this way),
# FUZZ_SEED (libFuzzer's -seed, default 1, so a CI run repeats the same mutations and fails or passes the
# same way; 0 lets libFuzzer pick one, for exploring beyond CI's runs), FUZZ_SANITIZER (address or none,
# default address),
# CARGO_FUZZ_VERSION (the cargo-fuzz to install, default 0.13.2). Needs cargo, cmake and nasm (.ci/run
# installs them), like the main build.
set -euo pipefail
cd "$(dirname "$0")/.."

seconds=${FUZZ_SECONDS:-60}
seed=${FUZZ_SEED:-1}
sanitizer=${FUZZ_SANITIZER:-address}
targets=("$@")
((${#targets[@]})) || targets=(params stored_path decode render video_facts)
export RUSTC_BOOTSTRAP=1
export RUSTFLAGS="${RUSTFLAGS:-} -Coverflow-checks"
# The same flags for the build and every run, so `cargo fuzz run` finds the targets built.
build=(--release --sanitizer "$sanitizer")
# Leaks of system libraries that the service contains, which LeakSanitizer would report as the target's
# (fuzz/lsan.supp says which and why); exported, so the runs below see it, and printed in the commands that
# reproduce a failure.
lsan="LSAN_OPTIONS=suppressions=$PWD/fuzz/lsan.supp"
export "${lsan?}"

if ! cargo fuzz --version >/dev/null 2>&1; then
  echo "== installing cargo-fuzz" >&2
  env -u RUSTC_WORKSPACE_WRAPPER -u CLIPPY_ARGS cargo install cargo-fuzz --locked --version "${CARGO_FUZZ_VERSION:-0.13.2}" >&2
fi
if [[ -n ${FUZZ_INSTALL_ONLY:-} ]]; then
  exit 0
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/shutterbox-fuzz.XXXXXX")
trap 'rm -rf "$work"' EXIT
# Artifacts newer than this are this run's.
touch "$work/started"

# The C libraries built with cmake (libaom, the largest, and libjpeg-turbo) are built once per CI run: the
# test build's copies (optimised like a release build, scripts/build-tools/cmake) are linked here too when
# there are some, through each -sys crate's own switch for a prebuilt library. They are not instrumented
# either way (see 2.).
test_build=${CARGO_TARGET_DIR:-$PWD/target}/debug/build
# The newest out/ directory of a -sys crate's build script that holds `library`, built as a cmake Release.
release_out() {
  local out
  for out in $(ls -td "$test_build"/"$1"-*/out 2>/dev/null); do
    if [[ -f $out/lib/$2 ]] && grep -q '^CMAKE_BUILD_TYPE:STRING=Release$' "$out/build/CMakeCache.txt" 2>/dev/null; then
      echo "$out"
      return
    fi
  done
}
out=$(release_out libaom-sys libaom.a)
if [[ -n $out ]]; then
  export LIB_AOM_STATIC_LIB_PATH=$out/lib LIB_AOM_INCLUDE_PATH=$out/include LIB_AOM_PKG_CONFIG_PATH=$out/lib/pkgconfig
  echo "== linking the test build's libaom ($out)" >&2
fi
out=$(release_out turbojpeg-sys libturbojpeg.a)
if [[ -n $out ]]; then
  export TURBOJPEG_SOURCE=explicit TURBOJPEG_STATIC=1 TURBOJPEG_LIB_DIR=$out/lib TURBOJPEG_INCLUDE_DIR=$out/include
  echo "== linking the test build's libjpeg-turbo ($out)" >&2
fi

echo "== cargo fuzz build ${build[*]}" >&2
# All targets in one cargo build (they share every dependency); `cargo fuzz run` below then finds them built.
(cd fuzz && cargo fuzz build "${build[@]}" >&2)
if [[ -n ${FUZZ_BUILD_ONLY:-} ]]; then
  echo "== built (FUZZ_BUILD_ONLY): a later run of this script finds the targets built" >&2
  exit 0
fi

# One target's run, its libFuzzer output in $work/<target>.log and its exit status in $work/<target>.status.
fuzz_target() {
  local target=$1 corpus=$work/corpus/$1 status=0
  mkdir -p "$corpus" "fuzz/artifacts/$target"
  cp -R "fuzz/corpus/$target/." "$corpus/"
  local dict=()
  [[ -f fuzz/dict/$target.dict ]] && dict=("-dict=$PWD/fuzz/dict/$target.dict")
  echo "== fuzzing $target for ${seconds}s ($(find "$corpus" -type f | wc -l) inputs to start from)" >&2
  (cd fuzz && cargo fuzz run "${build[@]}" "$target" "$corpus" -- \
    -max_total_time="$seconds" -seed="$seed" -rss_limit_mb=2048 -timeout=10 -print_final_stats=1 "${dict[@]}") \
    >"$work/$target.log" 2>&1 || status=$?
  echo "$status" >"$work/$target.status"
}

# Targets run side by side, one per core (FUZZ_JOBS): each libFuzzer process is single-threaded, so every
# target still gets its FUZZ_SECONDS of a whole core, in half the wall time on two.
jobs=${FUZZ_JOBS:-$(nproc)}
running=0
for target in "${targets[@]}"; do
  if ((running >= jobs)); then
    wait -n || true
    running=$((running - 1))
  fi
  fuzz_target "$target" &
  running=$((running + 1))
done
wait

failed=()
for target in "${targets[@]}"; do
  echo "== $target" >&2
  grep -E '^(Done [0-9]+ runs|stat::(number_of_executed_units|average_exec_per_sec|peak_rss_mb))' "$work/$target.log" >&2 || true
  status=$(cat "$work/$target.status" 2>/dev/null || echo "no status")
  if [[ $status != 0 ]]; then
    failed+=("$target")
    echo "!! $target failed (exit $status); the end of libFuzzer's output:" >&2
    tail -n 40 "$work/$target.log" >&2
  fi
done

if ((${#failed[@]})); then
  echo >&2
  for target in "${failed[@]}"; do
    found=false
    while IFS= read -r artifact; do
      found=true
      echo "!! $target: $artifact" >&2
      echo "   reproduce: (cd fuzz && $lsan RUSTC_BOOTSTRAP=1 RUSTFLAGS=-Coverflow-checks cargo fuzz run ${build[*]} $target ${artifact#fuzz/})" >&2
    done < <(find "fuzz/artifacts/$target" -type f -newer "$work/started")
    $found || echo "!! $target: no artifact saved; see its output above" >&2
  done
  exit 1
fi
echo "== no crashes in ${targets[*]} (${seconds}s each)" >&2
