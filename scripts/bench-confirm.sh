#!/usr/bin/env bash
# Confirm's latency, two builds side by side (BENCHMARKS.md, "Image facts"): the same picture uploaded ROUNDS
# times (default 40) to each, the two servers alternating, and each `POST /v1/upload/confirm` timed by curl
# (time_total; the presign and the PUT are not timed). Prints each build's median and quartiles in ms.
#
#   scripts/bench-confirm.sh BEFORE_BINARY AFTER_BINARY FILE [ROUNDS]
#
# Each binary is started as `serve` with its own data directory (embedded deployment); confirm's jobs run
# in the background of the same process, as they do in production.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/lib/services.sh
source scripts/lib/services.sh
# shellcheck source=scripts/lib/provision.sh
source scripts/lib/provision.sh
ensure_tools "the confirm benchmark" jq:jq curl:curl

before=${1:?usage: scripts/bench-confirm.sh BEFORE_BINARY AFTER_BINARY FILE [ROUNDS]}
after=${2:?usage: scripts/bench-confirm.sh BEFORE_BINARY AFTER_BINARY FILE [ROUNDS]}
file=${3:?usage: scripts/bench-confirm.sh BEFORE_BINARY AFTER_BINARY FILE [ROUNDS]}
rounds=${4:-40}
out=$(mktemp -d /tmp/bench-confirm.XXXXXX)
pids=()
datas=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  for data in "${datas[@]}"; do rm -rf "$data"; done
}
trap cleanup EXIT

urls=()
keys=()
for bin in "$before" "$after"; do
  mkdir -p "$out/${#urls[@]}"
  start_shutterbox "$bin" "$out/${#urls[@]}"
  pids+=("$server_pid")
  datas+=("$server_data")
  urls+=("$server_url")
  keys+=("$server_key")
done

size=$(stat -c%s "$file")
confirm_ms() { # URL KEY -> confirm's time in ms
  local auth=(-H "Authorization: ApiKey $2" -H 'Content-Type: application/json') presign
  presign=$(curl -fsS "$1/v1/upload/presign" "${auth[@]}" \
    -d '{"filename":"photo.jpg","mimetype":"image/jpeg","size":'"$size"'}')
  curl -fsS -X PUT "$(jq -r .uploadUrl <<<"$presign")" --data-binary @"$file" >/dev/null
  curl -fsS -o /dev/null -w '%{time_total}\n' "$1/v1/upload/confirm" "${auth[@]}" \
    -d '{"pendingUploadId":"'"$(jq -r .pendingUploadId <<<"$presign")"'"}' | awk '{ printf "%.2f\n", $1 * 1000 }'
}

# One untimed confirm each: the first request's connection pool and caches.
for i in 0 1; do confirm_ms "${urls[$i]}" "${keys[$i]}" >/dev/null; done
for _ in $(seq "$rounds"); do
  for i in 0 1; do confirm_ms "${urls[$i]}" "${keys[$i]}" >>"$out/times-$i"; done
done
for i in 0 1; do
  name=$([[ $i == 0 ]] && echo before || echo after)
  sort -n "$out/times-$i" | awk -v name="$name" '{ t[NR] = $1 } END {
    printf "%s: median %.2f ms (quartiles %.2f, %.2f) over %d confirms\n", name, t[int((NR + 1) / 2)], t[int((NR + 3) / 4)], t[int((3 * NR + 1) / 4)], NR }'
done
