#!/usr/bin/env bash
# Raw downloads against nginx (BENCHMARKS.md, "Raw downloads"): one original of SIZE MiB (default 1024),
# uploaded to each Shutterbox binary given (embedded deployment, its own data directory), and the very file
# the first one stored served by nginx (sendfile on) from the same disk; then ROUNDS (default 5) downloads
# of each over loopback with curl, the servers alternating, after one untimed download each (the page
# cache warm for all). Prints each server's median MB/s and its ratio to nginx's.
#
#   scripts/bench-raw.sh BINARY [BINARY...]          # e.g. target/release/shutterbox
#   SIZE_MIB=256 ROUNDS=9 scripts/bench-raw.sh target/release/shutterbox
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/lib/services.sh
source scripts/lib/services.sh
# shellcheck source=scripts/lib/provision.sh
source scripts/lib/provision.sh
ensure_tools "the raw download benchmark" jq:jq curl:curl nginx:nginx

(($#)) || { echo "usage: scripts/bench-raw.sh BINARY [BINARY...]" >&2; exit 2; }
size_mib=${SIZE_MIB:-1024}
rounds=${ROUNDS:-5}
out=$(mktemp -d /tmp/bench-raw.XXXXXX)
pids=()
datas=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  [[ -f $out/nginx.pid ]] && kill "$(cat "$out/nginx.pid")" 2>/dev/null || true
  for data in "${datas[@]}"; do rm -rf "$data"; done
  rm -rf "$out"
}
trap cleanup EXIT

head -c "$((size_mib << 20))" /dev/urandom >"$out/file.bin"
names=()
urls=()
original=
for bin in "$@"; do
  mkdir -p "$out/${#urls[@]}"
  start_shutterbox "$bin" "$out/${#urls[@]}"
  pids+=("$server_pid")
  datas+=("$server_data")
  auth=(-H "Authorization: ApiKey $server_key" -H 'Content-Type: application/json')
  presign=$(curl -fsS "$server_url/v1/upload/presign" "${auth[@]}" \
    -d '{"filename":"large.bin","mimetype":"application/octet-stream","size":'"$((size_mib << 20))"'}')
  curl -fsS -X PUT "$(jq -r .uploadUrl <<<"$presign")" -T "$out/file.bin" >/dev/null
  file=$(curl -fsS "$server_url/v1/upload/confirm" "${auth[@]}" \
    -d '{"pendingUploadId":"'"$(jq -r .pendingUploadId <<<"$presign")"'"}')
  names+=("$bin")
  urls+=("$(jq -r .file.rawUrl <<<"$file")")
  [[ -n $original ]] || original=$server_data/objects/files/$(jq -r .file.id <<<"$file")/original
done

# nginx serves the first server's stored original itself: the same bytes, the same disk.
nginx_port=$(free_port)
# Run as root, nginx's workers would be `nobody`, who cannot read the server's private data directory.
user=
[[ $EUID == 0 ]] && user="user root;"
cat >"$out/nginx.conf" <<CONF
$user
worker_processes auto;
pid $out/nginx.pid;
error_log $out/nginx.error.log;
events { worker_connections 64; }
http {
  access_log off;
  sendfile on;
  tcp_nopush on;
  server {
    listen 127.0.0.1:$nginx_port;
    location = /original { alias $original; default_type application/octet-stream; }
  }
}
CONF
nginx -c "$out/nginx.conf"
names+=(nginx)
urls+=("http://127.0.0.1:$nginx_port/original")

speed() { curl -fsS -o /dev/null -w '%{speed_download}\n' "$1"; }
for url in "${urls[@]}"; do speed "$url" >/dev/null; done
for _ in $(seq "$rounds"); do
  for i in "${!urls[@]}"; do speed "${urls[$i]}" >>"$out/speed-$i"; done
done
last=$((${#urls[@]} - 1))
nginx_median=$(sort -n "$out/speed-$last" | awk '{ s[NR] = $1 } END { print s[int((NR + 1) / 2)] }')
for i in "${!urls[@]}"; do
  sort -n "$out/speed-$i" | awk -v name="${names[$i]}" -v nginx="$nginx_median" '{ s[NR] = $1 } END {
    m = s[int((NR + 1) / 2)]; printf "%-40s median %7.0f MB/s (min %.0f, max %.0f) = %.2f x nginx\n", name, m / 1e6, s[1] / 1e6, s[NR] / 1e6, m / nginx }'
done
