#!/usr/bin/env bash
# Phone formats over HTTP (BENCHMARKS.md, "Phone formats"): the same 12 MP picture uploaded as JPEG, HEIC
# and JPEG XL, then cold deliveries of each into an 800 px JPEG, timed by curl.
#
#   scripts/bench-phone-formats.sh DIR [REQUESTS]
#
# DIR holds photo-4000x3000.jpg, .heic and .jxl (BENCHMARKS.md, "Phone formats", says how they are made). Starts
# the release build of `shutterbox serve` (`cargo build --release`) with its own data directory, uploads the three
# through the API, waits until confirm's thumbnail job has made the HEIC's and the JPEG XL's working copies
# (docs/formats.md, "Working copies"), then asks each for REQUESTS (default 10) widths it has never rendered
# (`w=800`, 801, …: every request a render, none a cache hit), one request at a time, the sources
# alternating, in three rounds. Prints each round's median time_total per source. Before that it times the
# first delivery of a fresh HEIC upload (its working copy made on the request path when the job has not
# made it yet).
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/lib/services.sh
source scripts/lib/services.sh
# shellcheck source=scripts/lib/provision.sh
source scripts/lib/provision.sh
ensure_tools "the phone-format benchmark" jq:jq curl:curl

dir=${1:?usage: scripts/bench-phone-formats.sh DIR [REQUESTS]}
requests=${2:-10}
target=${CARGO_TARGET_DIR:-$PWD/target}
out=$(mktemp -d /tmp/bench-phone.XXXXXX)
trap stop_shutterbox EXIT
start_shutterbox "$target/release/shutterbox" "$out"
auth=(-H "Authorization: ApiKey $server_key" -H 'Content-Type: application/json')

upload() { # FILE MIME NAME -> the file's JSON
  local presign
  presign=$(curl -fsS "$server_url/v1/upload/presign" "${auth[@]}" \
    -d '{"filename":"'"$3"'","mimetype":"'"$2"'","size":'"$(stat -c%s "$1")"'}')
  curl -fsS -X PUT "$(jq -r .uploadUrl <<<"$presign")" --data-binary @"$1" >/dev/null
  curl -fsS "$server_url/v1/upload/confirm" "${auth[@]}" \
    -d '{"pendingUploadId":"'"$(jq -r .pendingUploadId <<<"$presign")"'"}' | jq -c .file
}
seconds() { curl -fsS -o /dev/null -w '%{time_total}' "$1"; }

fresh=$(upload "$dir/photo-4000x3000.heic" image/heic fresh.heic)
echo "first delivery of a fresh HEIC upload (w=800): $(seconds "$(jq -r .secureUrl <<<"$fresh")?w=800&format=jpeg") s"

declare -A url
for source in jpg heic jxl; do
  mime=$(case $source in jpg) echo image/jpeg ;; heic) echo image/heic ;; jxl) echo image/jxl ;; esac)
  file=$(upload "$dir/photo-4000x3000.$source" "$mime" "photo.$source")
  url[$source]=$(jq -r .secureUrl <<<"$file")
  # The thumbnail is stored once the job ran; for HEIC and JPEG XL the job made the working copy first.
  for _ in $(seq 100); do
    [[ -n $(find "$server_data" -path "*$(jq -r .id <<<"$file")/v/*" -type f | head -1) ]] && break
    sleep 0.2
  done
done
sleep 1

width=800
for round in 1 2 3; do
  declare -A times=()
  for _ in $(seq "$requests"); do
    for source in jpg heic jxl; do
      times[$source]+="$(seconds "${url[$source]}?w=$width&format=jpeg") "
    done
    width=$((width + 1))
  done
  line="round $round, median of $requests (ms):"
  for source in jpg heic jxl; do
    median=$(tr ' ' '\n' <<<"${times[$source]}" | grep . | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)] * 1000}')
    line+=" $source $median"
  done
  echo "$line"
done
