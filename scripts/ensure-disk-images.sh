#!/usr/bin/env bash
# Makes sure the host can give each workspace its own ext4 image (hard resources.diskMb):
# installs e2fsprogs (mkfs.ext4, e2fsck) and mount from Debian's packages when missing, and
# says whether loop devices are there. Without them the control plane still runs, with the
# du watchdog as the only disk limit, and says so at startup. Idempotent.
set -euo pipefail

log() { printf '[ensure-disk-images] %s\n' "$*" >&2; }

missing=()
command -v mkfs.ext4 >/dev/null 2>&1 || missing+=(e2fsprogs)
command -v mount >/dev/null 2>&1 || missing+=(mount)
if [ "${#missing[@]}" -gt 0 ]; then
  if [ "$(id -u)" != "0" ]; then
    log "Missing ${missing[*]} and not root: workspaces will fall back to the disk watchdog. Fix: sudo apt-get install -y ${missing[*]}"
    exit 0
  fi
  log "Installing ${missing[*]} from Debian's packages..."
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq "${missing[@]}" >/dev/null
fi

if [ ! -e /dev/loop-control ]; then
  log "No /dev/loop-control: workspaces will fall back to the disk watchdog. Fix: modprobe loop (or give this container loop devices)."
else
  log "mkfs.ext4 and loop devices are available."
fi
