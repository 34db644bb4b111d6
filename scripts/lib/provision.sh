# shellcheck shell=bash
# Installing the system tools the build and the scripts need, when a machine lacks them (sourced, not run).
#
#   ensure_tools "why they are needed" command:debian-package ...
#   ensure_libraries "why they are needed" pkg-config-name:debian-package ...
#
# Returns at once when every command is on PATH (every library known to pkg-config). Otherwise installs the missing commands' Debian packages
# with apt-get, as root or through passwordless sudo, saying what it installs and why; on a system where it
# cannot (no apt-get, or neither root nor sudo), it stops with the one line the user must run. Concurrent
# callers (cargo runs build scripts in parallel) take turns on a lock, so a package is installed once.
# Messages go to stderr and, when there is one, to the terminal: cargo keeps a build script's output to
# itself unless the build fails, and a newcomer should see why the first build pauses.

provision_say() {
  echo "shutterbox: $*" >&2
  # Only when stderr is not already the terminal, so nothing is printed twice.
  if [[ ! -t 2 ]]; then
    { echo "shutterbox: $*" >/dev/tty; } 2>/dev/null || true
  fi
}

# "a", "a and b", "a, b and c".
provision_list() {
  local out=$1
  shift
  while (($#)); do
    if (($# == 1)); then out+=" and $1"; else out+=", $1"; fi
    shift
  done
  echo "$out"
}

provision_has_command() { command -v "$1" >/dev/null 2>&1; }
provision_has_library() { command -v pkg-config >/dev/null 2>&1 && pkg-config --exists "$1"; }

ensure_tools() { provision_ensure provision_has_command "$@"; }
# pkg-config itself is installed with the first library that needs it.
ensure_libraries() {
  local why=$1
  shift
  provision_has_command pkg-config || ensure_tools "$why" pkg-config:pkg-config || return 1
  provision_ensure provision_has_library "$why" "$@"
}

provision_ensure() {
  local has=$1 why=$2 spec
  shift 2
  local missing_commands=() packages=()
  for spec in "$@"; do
    "$has" "${spec%%:*}" || { missing_commands+=("${spec%%:*}"); packages+=("${spec#*:}"); }
  done
  ((${#packages[@]})) || return 0
  local tools
  tools=$(provision_list "${missing_commands[@]}")

  local as_root=()
  if ((EUID != 0)); then
    if command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
      as_root=(sudo)
    elif command -v apt-get >/dev/null 2>&1; then
      provision_say "$why needs $tools, which this machine lacks; run this, then the command again:"
      provision_say "  sudo apt-get install -y ${packages[*]}"
      return 1
    fi
  fi
  if ! command -v apt-get >/dev/null 2>&1; then
    provision_say "$why needs $tools, which this machine lacks, and it has no apt-get to install them with." \
      "Install them with your package manager (e.g. \`brew install ${packages[*]}\` or \`dnf install ${packages[*]}\`), then run the command again."
    return 1
  fi

  # One installer at a time; whoever waited finds the packages there and installs nothing.
  local lock=${TMPDIR:-/tmp}/shutterbox-provision-$EUID.lock
  (
    flock 9
    local still=()
    for spec in "$@"; do "$has" "${spec%%:*}" || still+=("${spec#*:}"); done
    ((${#still[@]})) || exit 0
    provision_say "$why needs $tools; installing the Debian package(s) ${still[*]} with ${as_root[*]:+sudo }apt-get (once; about a minute)"
    export DEBIAN_FRONTEND=noninteractive
    # The package lists of a fresh machine may be empty or stale: install, and on failure update and retry.
    if ! "${as_root[@]}" apt-get install -y -qq --no-install-recommends "${still[@]}" >&2; then
      "${as_root[@]}" apt-get update -qq >&2 &&
        "${as_root[@]}" apt-get install -y -qq --no-install-recommends "${still[@]}" >&2 || exit 1
    fi
    provision_say "installed ${still[*]}"
  ) 9>"$lock" || {
    provision_say "installing ${packages[*]} failed (the apt-get output is above); run this, then the command again:"
    provision_say "  ${as_root[*]:+sudo }apt-get install -y ${packages[*]}"
    return 1
  }
  for spec in "$@"; do
    "$has" "${spec%%:*}" || {
      provision_say "${spec%%:*} is still missing after installing ${spec#*:}"
      return 1
    }
  done
}
