#!/usr/bin/env bash
# Makes a Docker engine available with gVisor registered, so workers run under runsc:
#  1. installs docker.io from Debian's packages when dockerd is missing, and runsc when it is;
#  2. merges the runsc runtime entry into daemon.json (other keys and runtimes stay);
#  3. starts dockerd when none runs, or reloads a running one (SIGHUP reloads runtimes);
#  4. checks that `docker info` lists runsc, and fails if it does not.
# Idempotent; safe to run on every CI start. WORKCELL_RUNTIME=runc skips gVisor (a warning,
# not an error). For trying it against a second engine:
#   WORKCELL_DAEMON_JSON  the daemon.json to merge into (default /etc/docker/daemon.json)
#   WORKCELL_DOCKERD_PIDFILE  the running dockerd's pid file (default /var/run/docker.pid)
#   WORKCELL_DOCKERD_ARGS  extra arguments when this script starts dockerd
#   WORKCELL_ENSURE_DRY_RUN=1  say what would change, change nothing
# A second engine on the same host must not be given --bridge=none: Docker 20.10 then deletes
# the docker0 interface the first engine's bridged containers need. Give it its own bridge.
set -euo pipefail

log() { printf '[ensure-docker] %s\n' "$*" >&2; }
die() { log "$*"; exit 1; }

here=$(cd "$(dirname "$0")" && pwd)
daemon_json=${WORKCELL_DAEMON_JSON:-/etc/docker/daemon.json}
pidfile=${WORKCELL_DOCKERD_PIDFILE:-/var/run/docker.pid}
log_file=${DOCKERD_LOG:-/var/log/workcell-dockerd.log}
dry_run=${WORKCELL_ENSURE_DRY_RUN:-0}
# --network=none: workers have no network device anyway (egress goes through a mounted
# socket), and gVisor's own network stack is not needed. --host-uds=open: lets a worker
# connect to that socket (its egress proxy); it cannot create host sockets.
runsc_args=(--network=none --host-uds=open)
want_runsc=1
if [ "${WORKCELL_RUNTIME:-}" = "runc" ]; then want_runsc=0; fi

run() {
  if [ "$dry_run" = "1" ]; then log "dry run: would run: $*"; else "$@"; fi
}

runtimes_listed() { docker info --format '{{json .Runtimes}}' 2>/dev/null || true; }

dockerd_pid() {
  local pid
  pid=$(cat "$pidfile" 2>/dev/null || true)
  if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then echo "$pid"; fi
}

need_root() {
  [ "$(id -u)" = "0" ] || die "$1 needs root. Fix: run this script as root (sudo $0), or do it by hand: $2"
}

apt_install() {
  need_root "Installing $*" "apt-get install $*"
  export DEBIAN_FRONTEND=noninteractive
  run apt-get update -qq
  run apt-get install -y -qq "$@" >/dev/null
}

# 1. Packages.
if ! docker info >/dev/null 2>&1 && ! command -v dockerd >/dev/null 2>&1; then
  log "dockerd not found; installing docker.io from Debian's packages..."
  apt_install docker.io
fi
if [ "$want_runsc" = "1" ] && ! command -v runsc >/dev/null 2>&1; then
  log "runsc (gVisor) not found; installing it from Debian's packages..."
  apt_install runsc
fi

# 2. The runtime entry.
changed=0
if [ "$want_runsc" = "1" ]; then
  runsc_path=$(command -v runsc || echo /usr/bin/runsc)
  if [ "$dry_run" = "1" ]; then
    preview=$(mktemp)
    if [ -f "$daemon_json" ]; then cp "$daemon_json" "$preview"; fi
    outcome=$(node "$here/register-runtime.mjs" "$preview" runsc "$runsc_path" "${runsc_args[@]}")
    if [ "$outcome" = "changed" ]; then log "dry run: $daemon_json would become:"; cat "$preview" >&2; changed=1; fi
    rm -f "$preview"
  else
    if [ ! -w "$(dirname "$daemon_json")" ] && [ ! -w "$daemon_json" ]; then
      case "$(runtimes_listed)" in
        *'"runsc"'*) ;;
        *) need_root "Registering runsc in $daemon_json" "add {\"runtimes\": {\"runsc\": {\"path\": \"$runsc_path\", \"runtimeArgs\": [\"--network=none\", \"--host-uds=open\"]}}} to $daemon_json and reload dockerd" ;;
      esac
    else
      outcome=$(node "$here/register-runtime.mjs" "$daemon_json" runsc "$runsc_path" "${runsc_args[@]}")
      if [ "$outcome" = "changed" ]; then log "registered runsc in $daemon_json"; changed=1; fi
    fi
  fi
else
  log "WARNING: WORKCELL_RUNTIME=runc: not installing or registering gVisor; workers run under runc, with the host kernel as their only boundary."
fi

# 3. The engine.
listed=0
case "$(runtimes_listed)" in *'"runsc"'*) listed=1 ;; esac
if docker info >/dev/null 2>&1; then
  # Reload after a change, or when an earlier run wrote the entry but the engine never read it.
  if [ "$changed" = "1" ] || { [ "$want_runsc" = "1" ] && [ "$listed" = "0" ]; }; then
    pid=$(dockerd_pid)
    [ -n "$pid" ] || die "runsc was registered in $daemon_json, but the engine that answers has no pid in $pidfile to reload. Fix: reload or restart that engine (e.g. 'systemctl reload docker'), or set WORKCELL_DOCKERD_PIDFILE."
    log "reloading dockerd (pid $pid) so it picks up the runtime..."
    run kill -HUP "$pid"
  fi
else
  need_root "Starting dockerd" "start Docker (e.g. 'sudo systemctl start docker')"
  [ -z "$(dockerd_pid)" ] || die "dockerd (pid $(dockerd_pid)) runs but does not answer. See its log ($log_file), or restart it."
  storage=(--storage-driver=overlay2)
  # dockerd refuses a setting given both as a flag and in the file.
  if [ -f "$daemon_json" ] && grep -q '"storage-driver"' "$daemon_json"; then storage=(); fi
  extra=()
  if [ -n "${WORKCELL_DOCKERD_ARGS:-}" ]; then read -r -a extra <<<"$WORKCELL_DOCKERD_ARGS"; fi
  log "starting dockerd in the background (log: $log_file)..."
  if [ "$dry_run" = "1" ]; then
    log "dry run: would run: dockerd ${storage[*]} --config-file $daemon_json --pidfile $pidfile ${extra[*]}"
  else
    config=()
    if [ -f "$daemon_json" ]; then config=(--config-file "$daemon_json"); fi
    nohup dockerd "${storage[@]}" "${config[@]}" --pidfile "$pidfile" "${extra[@]}" >"$log_file" 2>&1 &
    up=0
    for _ in $(seq 1 60); do
      if docker info >/dev/null 2>&1; then up=1; break; fi
      sleep 1
    done
    if [ "$up" = "0" ]; then
      log "dockerd did not answer within 60 s. Last lines of $log_file:"
      tail -n 20 "$log_file" >&2 || true
      exit 1
    fi
  fi
fi
[ "$dry_run" = "1" ] && exit 0
log "Docker engine is up ($(docker version --format '{{.Server.Version}}'))."

# 4. The check: a reload is asynchronous, so give it a few seconds.
if [ "$want_runsc" = "1" ]; then
  for _ in $(seq 1 20); do
    case "$(runtimes_listed)" in
      *'"runsc"'*) log "gVisor is registered: workers run under runsc by default."; exit 0 ;;
    esac
    sleep 0.5
  done
  die "docker info does not list runsc after registering it in $daemon_json. The engine may read another file (see its --config-file) or have refused it: check the dockerd log ($log_file or 'journalctl -u docker'). To run without gVisor instead, set WORKCELL_RUNTIME=runc."
fi
