#!/usr/bin/env bash
# Starts a local S3-compatible server (s3s-fs) for the S3 backend's tests, and prints where it listens:
#
#   scripts/start-s3.sh [PORT] [DATA_DIR]          # defaults: 9000 and a fresh temporary directory
#   export "$(scripts/start-s3.sh)"                # sets SHUTTERBOX_TEST_S3_ENDPOINT for `cargo test`
#   scripts/start-s3.sh --install                  # only step 2 (CI installs it beside the build)
#
# 1. If something already answers 403 at http://127.0.0.1:PORT/ (an S3 server refusing an unsigned request),
#    reuses it: prints the line and exits.
# 2. Installs s3s-fs when it is not on PATH (nor in ~/.cargo/bin): `cargo install s3s-fs --version 0.14.1
#    --features binary --locked`, about 2.5 minutes (0.15+ needs a newer rustc than 1.95).
# 3. Starts `s3s-fs --host 127.0.0.1 --port PORT --access-key minioadmin --secret-key minioadmin DATA_DIR`
#    detached (it outlives this script), logging next to DATA_DIR, and waits up to 20 s for it to answer 403.
#
# Progress goes to stderr; stdout is only `SHUTTERBOX_TEST_S3_ENDPOINT=http://127.0.0.1:PORT`.
# Stop it with `kill <pid>` (the pid is printed to stderr).
#
# Why s3s-fs: the tests need a real S3-compatible server but no Docker engine or MinIO binary. s3s-fs (from
# crates.io) serves a local directory over S3 with path-style addressing and checks SigV4 signatures, in
# headers and presigned URLs, refusing tampered or expired ones, so the presigned-upload tests mean
# something (moto, for one, checks no signature at all). docker-compose.yml runs real MinIO for users.
set -euo pipefail

# Sets `bin` to s3s-fs, installing it first when it is missing.
ensure_s3s_fs() {
    bin=$(command -v s3s-fs || true)
    local cargo_bin="${CARGO_HOME:-$HOME/.cargo}/bin/s3s-fs"
    if [ -z "$bin" ] && [ -x "$cargo_bin" ]; then
        bin=$cargo_bin
    fi
    if [ -z "$bin" ]; then
        echo "start-s3: s3s-fs is not installed; installing it (cargo install, about 2.5 minutes)" >&2
        # A tool, not the workspace: built without a workspace rustc wrapper CI may have set (clippy).
        env -u RUSTC_WORKSPACE_WRAPPER -u CLIPPY_ARGS cargo install s3s-fs --version 0.14.1 --features binary --locked >&2
        bin=$cargo_bin
    fi
}

if [ "${1:-}" = --install ]; then
    ensure_s3s_fs
    echo "start-s3: s3s-fs is $bin" >&2
    exit 0
fi

port=${1:-9000}
data_dir=${2:-}
endpoint="http://127.0.0.1:$port"

status() {
    curl -s -o /dev/null -m 2 -w '%{http_code}' "$endpoint/" || true
}

case "$(status)" in
    403)
        echo "start-s3: an S3 server already answers at $endpoint; reusing it" >&2
        echo "SHUTTERBOX_TEST_S3_ENDPOINT=$endpoint"
        exit 0
        ;;
    000 | "") ;;
    *)
        echo "start-s3: port $port is taken by something that is not an S3 server (GET / did not answer 403)" >&2
        exit 1
        ;;
esac

ensure_s3s_fs

if [ -z "$data_dir" ]; then
    root=$(mktemp -d "${TMPDIR:-/tmp}/shutterbox-s3.XXXXXX")
    data_dir="$root/data"
    log="$root/s3s-fs.log"
else
    log="$(dirname "$data_dir")/s3s-fs-$port.log"
fi
mkdir -p "$data_dir"

# Detached (own session, no inherited descriptors) so it keeps running after this script and its caller.
if command -v setsid >/dev/null; then
    setsid nohup "$bin" --host 127.0.0.1 --port "$port" --access-key minioadmin --secret-key minioadmin \
        "$data_dir" </dev/null >"$log" 2>&1 &
else
    nohup "$bin" --host 127.0.0.1 --port "$port" --access-key minioadmin --secret-key minioadmin \
        "$data_dir" </dev/null >"$log" 2>&1 &
fi
pid=$!

for _ in $(seq 100); do
    if [ "$(status)" = 403 ]; then
        echo "start-s3: s3s-fs (pid $pid) serves $data_dir at $endpoint; log: $log" >&2
        echo "SHUTTERBOX_TEST_S3_ENDPOINT=$endpoint"
        exit 0
    fi
    if ! kill -0 "$pid" 2>/dev/null; then
        break
    fi
    sleep 0.2
done

echo "start-s3: s3s-fs did not answer 403 at $endpoint within 20 s; last lines of $log:" >&2
tail -n 20 "$log" >&2 || true
kill "$pid" 2>/dev/null || true
exit 1
