# shellcheck shell=bash
# Shared by the scripts that drive a browser (clients.sh, console.sh, bench-console.sh; sourced, not run):
# Chromium, the TypeScript checks under clients/typescript, and the server build they run against.

# Sets `chromium`: $CHROMIUM, else Debian's chromium (installed when missing, for WHY).
ensure_chromium() {
  local why=$1
  # shellcheck source=scripts/lib/provision.sh
  source "$(dirname "${BASH_SOURCE[0]}")/provision.sh"
  if [[ -z ${CHROMIUM:-} ]]; then
    ensure_tools "$why" chromium:chromium || return 1
  fi
  chromium=${CHROMIUM:-$(command -v chromium)}
  [[ -x $chromium ]] || {
    echo "no Chromium at $chromium" >&2
    return 1
  }
}

# Installs the pinned npm packages (package-lock.json), generates the client's types from
# openapi/openapi.json and compiles clients/typescript/src with `tsc --strict` into dist/.
build_typescript_checks() {
  (
    cd "$(dirname "${BASH_SOURCE[0]}")/../../clients/typescript" &&
      npm ci --no-audit --no-fund --loglevel=error &&
      npm run --silent generate &&
      rm -rf dist &&
      npm run --silent build
  )
}

# Sets `bin` to the test suite's debug build of the server (scripts/test.sh builds the same: the same
# features, so after the tests nothing is compiled again; `cargo build --bin shutterbox` alone would leave
# out the dev-dependencies' features and rebuild most crates).
build_test_server() {
  echo "== cargo test --no-run (debug build of the server)"
  cargo test --workspace --locked --no-run || return 1
  bin=${CARGO_TARGET_DIR:-$PWD/target}/debug/shutterbox
}
