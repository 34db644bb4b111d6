#!/usr/bin/env bash
# The test command of the README: runs every test of the workspace (unit tests and the end-to-end HTTP
# suite, which starts real servers on random ports with their own data directories). Needs nothing but
# the Rust toolchain.
set -euo pipefail
cd "$(dirname "$0")/.."
exec cargo test --workspace --locked "$@"
