# shellcheck shell=bash
# Shared by scripts/test.sh and the other scripts (sourced, not run): the machine's PostgreSQL and Redis,
# the tests' npm references, free ports, the oha load generator, and a throwaway embedded server.

# Starts the local PostgreSQL (127.0.0.1:5432) and Redis (127.0.0.1:6379, no persistence) if they are
# installed but down; fails with a message naming the one that cannot be reached.
ensure_postgres_and_redis() {
  # The clients; a machine running the servers has them already.
  # shellcheck source=scripts/lib/provision.sh
  source "$(dirname "${BASH_SOURCE[0]}")/provision.sh"
  ensure_tools "checking and cleaning up PostgreSQL and Redis" pg_isready:postgresql-client psql:postgresql-client \
    redis-cli:redis-tools || return 1
  if ! pg_isready -q -h 127.0.0.1 -p 5432 2>/dev/null; then
    if command -v pg_ctlcluster >/dev/null && [[ -d /etc/postgresql ]]; then
      pg_ctlcluster --skip-systemctl-redirect "$(ls /etc/postgresql | head -1)" main start >&2
    fi
    for _ in $(seq 50); do pg_isready -q -h 127.0.0.1 -p 5432 2>/dev/null && break; sleep 0.2; done
  fi
  pg_isready -q -h 127.0.0.1 -p 5432 || { echo "PostgreSQL is not reachable on 127.0.0.1:5432" >&2; return 1; }

  if ! redis-cli -h 127.0.0.1 -p 6379 ping >/dev/null 2>&1; then
    if command -v redis-server >/dev/null; then
      redis-server --daemonize yes --bind 127.0.0.1 --port 6379 --save "" --appendonly no >&2
    fi
    for _ in $(seq 50); do redis-cli -h 127.0.0.1 -p 6379 ping >/dev/null 2>&1 && break; sleep 0.2; done
  fi
  redis-cli -h 127.0.0.1 -p 6379 ping >/dev/null 2>&1 || { echo "Redis is not reachable on 127.0.0.1:6379" >&2; return 1; }
}

# FFmpeg (Debian's), then sharp (libvips) from npm: the reference the corpus tests (pipeline/tests/corpus_*.rs, facts_reference.rs)
# ask what libvips reads of the corpora; beside it the reference decoders of ThumbHash and BlurHash, and
# tus-js-client, the TUS client the resumable-upload test drives. Installed once under target/tools (or
# $SHUTTERBOX_SHARP_DIR); exports SHUTTERBOX_SHARP_NODE_MODULES, where the tests find them.
ensure_reference_packages() {
  # FFmpeg's ffmpeg and ffprobe: the video tests' reference, and what decodes videos' frames.
  # shellcheck source=scripts/lib/provision.sh
  source "$(dirname "${BASH_SOURCE[0]}")/provision.sh"
  ensure_tools "the video tests (ffprobe and ffmpeg are their reference)" ffmpeg:ffmpeg ffprobe:ffmpeg || return 1
  local dir=${SHUTTERBOX_SHARP_DIR:-target/tools/sharp} package
  local packages=(sharp@0.35 thumbhash@0.1 blurhash@2 tus-js-client@4)
  for package in "${packages[@]}"; do
    if [[ ! -d $dir/node_modules/${package%@*} ]]; then
      echo "== npm install ${packages[*]} into $dir"
      npm install --silent --no-audit --no-fund --prefix "$dir" "${packages[@]}" || return 1
      break
    fi
  done
  SHUTTERBOX_SHARP_NODE_MODULES=$(cd "$dir/node_modules" && pwd) || return 1
  export SHUTTERBOX_SHARP_NODE_MODULES
}

# A TCP port on 127.0.0.1 that was free a moment ago.
free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# Sets oha_bin (from $OHA, <tools dir>/bin/oha, PATH, or `cargo install oha` into the tools dir) and
# oha_json (the flag for JSON output, which changed name between oha versions).
find_oha() {
  local tools=$1
  oha_bin=${OHA:-}
  if [[ -z $oha_bin ]]; then
    if [[ -x $tools/bin/oha ]]; then
      oha_bin=$tools/bin/oha
    elif command -v oha >/dev/null; then
      oha_bin=$(command -v oha)
    else
      echo "== cargo install oha --locked --root $tools (a few minutes, once)" >&2
      # A tool, not the workspace: built without a workspace rustc wrapper CI may have set (clippy).
      env -u RUSTC_WORKSPACE_WRAPPER -u CLIPPY_ARGS cargo install oha --locked --root "$tools" --target-dir "$tools/build" >&2
      rm -rf "$tools/build"
      oha_bin=$tools/bin/oha
    fi
  fi
  if "$oha_bin" --help | grep -q -- '--output-format'; then oha_json=(--output-format json); else oha_json=(--json); fi
}

# Starts nginx ($nginx_bin, else from PATH or /usr/sbin) serving the files of ROOT on a free port of
# 127.0.0.1, tuned as a static file server is: one worker per core, sendfile, no access log, keep-alive
# without a request limit. Its config, logs and temporary files go under DIR. Sets nginx_pid and
# nginx_port; fails when it does not answer within 5 s.
start_static_nginx() {
  local dir=$1 root=$2 bin=${nginx_bin:-$(command -v nginx || echo /usr/sbin/nginx)}
  mkdir -p "$dir/logs" "$dir/tmp"
  nginx_port=$(free_port)
  cat >"$dir/nginx.conf" <<EOF
worker_processes $(nproc);
daemon off;
pid $dir/nginx.pid;
error_log $dir/logs/error.log warn;
events { worker_connections 4096; }
http {
    types { image/webp webp; image/jpeg jpg jpeg; image/png png; image/avif avif; }
    access_log off;
    sendfile on;
    tcp_nopush on;
    keepalive_requests 1000000;
    client_body_temp_path $dir/tmp;
    proxy_temp_path $dir/tmp;
    fastcgi_temp_path $dir/tmp;
    uwsgi_temp_path $dir/tmp;
    scgi_temp_path $dir/tmp;
    server {
        listen 127.0.0.1:$nginx_port;
        root $root;
    }
}
EOF
  # As root, nginx's workers would run as nobody, who may not read ROOT.
  if [[ $(id -u) == 0 ]]; then sed -i '1i user root;' "$dir/nginx.conf"; fi
  "$bin" -e "$dir/logs/error.log" -p "$dir" -c "$dir/nginx.conf" &
  nginx_pid=$!
  for _ in $(seq 50); do
    # Any answer (the root's listing is a 403) means it serves.
    curl -sS -o /dev/null "http://127.0.0.1:$nginx_port/" 2>/dev/null && return 0
    sleep 0.1
  done
  echo "nginx did not start: $(cat "$dir/logs/error.log" 2>/dev/null)" >&2
  return 1
}

# Starts `<bin> serve` on a free port of 127.0.0.1 with a fresh data directory (the embedded deployment),
# the caller's environment (e.g. `SHUTTERBOX_RATE_LIMIT=… start_shutterbox …`) and its output in
# <out dir>/server.stdout and server.stderr, and waits until it answers /healthz. Sets server_pid,
# server_url and server_key (the secret key of the first start's `default` account, from <data>/bootstrap-key). stop_shutterbox ends
# it and removes its data.
start_shutterbox() {
  local bin=$1 out=$2 port
  server_data=$(mktemp -d /tmp/shutterbox-serve.XXXXXX)
  port=$(free_port)
  server_url=http://127.0.0.1:$port
  SHUTTERBOX_DATA_DIR=$server_data SHUTTERBOX_LISTEN=127.0.0.1:$port \
    "$bin" serve >"$out/server.stdout" 2>"$out/server.stderr" &
  server_pid=$!
  for _ in $(seq 100); do
    curl -fsS "$server_url/healthz" >/dev/null 2>&1 && break
    sleep 0.1
  done
  # The first start writes its key to the data directory when its output is not a terminal.
  server_key=$(grep '^sbx_' "$server_data/bootstrap-key" 2>/dev/null || true)
  if [[ -z $server_key ]]; then
    cat "$out/server.stderr" >&2
    echo "$bin serve did not start" >&2
    return 1
  fi
}

stop_shutterbox() {
  if [[ -n ${server_pid:-} ]]; then
    kill "$server_pid" 2>/dev/null || true
    wait "$server_pid" 2>/dev/null || true
  fi
  if [[ -n ${server_data:-} ]]; then rm -rf "$server_data"; fi
}
