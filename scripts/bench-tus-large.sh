#!/usr/bin/env bash
# One very large resumable upload in the distributed deployment, outside CI (BENCHMARKS.md, "Targets"): a
# sparse file of SIZE_GIB GiB (default 6, past S3's 5 GiB single-PUT limit) sent by tus-js-client in CHUNK_MIB
# MiB PATCHes (default 64) to BINARY serving on PostgreSQL, Redis and s3s-fs.
# Prints the time, the server's peak RSS, the S3 parts the upload became, and the file's size as stored.
#
#   scripts/bench-tus-large.sh target/release/shutterbox
#
# Needs the local PostgreSQL and Redis (started if down), s3s-fs (installed by scripts/start-s3.sh) and
# tus-js-client (installed under target/tools/sharp, as scripts/test.sh does). Space: the file is sparse,
# but s3s-fs writes the parts, the assembled object and the file's copy: three times SIZE_GIB on disk.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/lib/services.sh
source scripts/lib/services.sh
# shellcheck source=scripts/lib/provision.sh
source scripts/lib/provision.sh
ensure_tools "the large-upload benchmark" jq:jq curl:curl

bin=${1:?usage: scripts/bench-tus-large.sh BINARY}
size_gib=${SIZE_GIB:-6}
chunk_mib=${CHUNK_MIB:-64}
ensure_postgres_and_redis
modules=$PWD/target/tools/sharp/node_modules
[[ -d $modules/tus-js-client ]] || npm install --silent --no-audit --no-fund --prefix target/tools/sharp tus-js-client@4

work=$(mktemp -d /tmp/bench-tus-large.XXXXXX)
database=sbx_bench_$$
s3_port=$(free_port)
server_pid=
cleanup() {
  [[ -n $server_pid ]] && kill "$server_pid" 2>/dev/null || true
  pkill -f "s3s-fs .*--port $s3_port" 2>/dev/null || true
  psql -h 127.0.0.1 -U postgres -d postgres -qc "DROP DATABASE IF EXISTS $database WITH (FORCE)" >/dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT

mkdir -p "$work/s3"
scripts/start-s3.sh "$s3_port" "$work/s3" >/dev/null
psql -h 127.0.0.1 -U postgres -d postgres -qc "CREATE DATABASE $database" >/dev/null
port=$(free_port)
SHUTTERBOX_DATA_DIR=$work/data SHUTTERBOX_LISTEN=127.0.0.1:$port \
  SHUTTERBOX_DATABASE_URL=postgres://postgres@127.0.0.1:5432/$database \
  SHUTTERBOX_REDIS_URL=redis://127.0.0.1:6379 SHUTTERBOX_REDIS_PREFIX=sbx_bench_$$ \
  SHUTTERBOX_S3_ENDPOINT=http://127.0.0.1:$s3_port SHUTTERBOX_S3_BUCKET=bench \
  SHUTTERBOX_S3_ACCESS_KEY=minioadmin SHUTTERBOX_S3_SECRET_KEY=minioadmin \
  SHUTTERBOX_MAX_UPLOAD_BYTES=$(((size_gib + 1) << 30)) \
  "$bin" serve >"$work/server.stdout" 2>"$work/server.stderr" &
server_pid=$!
for _ in $(seq 100); do curl -fsS "http://127.0.0.1:$port/healthz" >/dev/null 2>&1 && break; sleep 0.2; done
key=$(grep '^sbx_' "$work/data/bootstrap-key")

truncate -s "${size_gib}G" "$work/large.bin"
report=$(NODE_PATH=$modules node scripts/tus-large.cjs "http://127.0.0.1:$port/v1/uploads/tus" "$key" \
  "$work/large.bin" "$((chunk_mib << 20))")
rss_kib=$(awk '/^VmHWM/ { print $2 }' "/proc/$server_pid/status")
file_id=$(jq -r .fileId <<<"$report")
stored=$(curl -fsS "http://127.0.0.1:$port/v1/files/$file_id" -H "Authorization: ApiKey $key" | jq -r .file.rawSize)
assembly=$(psql -h 127.0.0.1 -U postgres -d "$database" -Atc "SELECT assembly FROM pending_uploads WHERE file_id = '$file_id'")
jq -n --argjson report "$report" --arg rss "$rss_kib" --arg stored "$stored" --argjson assembly "$assembly" '{
  bytes: ($stored | tonumber), seconds: $report.seconds, "MB/s": (($stored | tonumber) / $report.seconds / 1e6),
  peak_rss_mib: (($rss | tonumber) / 1024), parts: ($assembly.multipart.parts | length),
  part_size: $assembly.multipart.part_size, last_part: ($assembly.multipart.parts | last | .size)
}'
