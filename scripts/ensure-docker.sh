#!/usr/bin/env bash
# Makes a Docker engine available: if `docker info` fails, installs docker.io from
# Debian's packages (when dockerd is missing) and starts dockerd in the background,
# then waits until the engine answers. Idempotent; safe to run on every CI start.
set -euo pipefail

log() { printf '[ensure-docker] %s\n' "$*" >&2; }

if docker info >/dev/null 2>&1; then
  log "Docker engine is available."
  exit 0
fi

if [ "$(id -u)" != "0" ]; then
  log "No Docker engine answers and this script is not running as root."
  log "Fix: start Docker (e.g. 'sudo systemctl start docker'), or run this script as root: sudo $0"
  exit 1
fi

if ! command -v dockerd >/dev/null 2>&1; then
  log "dockerd not found; installing docker.io from Debian's packages..."
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq docker.io >/dev/null
fi

log_file=${DOCKERD_LOG:-/var/log/workcell-dockerd.log}
if ! pgrep -x dockerd >/dev/null 2>&1; then
  log "Starting dockerd in the background (log: $log_file)..."
  nohup dockerd --storage-driver=overlay2 >"$log_file" 2>&1 &
fi

for _ in $(seq 1 60); do
  if docker info >/dev/null 2>&1; then
    log "Docker engine is up ($(docker version --format '{{.Server.Version}}'))."
    exit 0
  fi
  sleep 1
done

log "dockerd did not answer within 60 s. Last lines of $log_file:"
tail -n 20 "$log_file" >&2 || true
exit 1
