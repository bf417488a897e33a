#!/usr/bin/env bash
# Makes a Chromium available for the dashboard's browser tests: Debian's `chromium`
# package (never a browser download). Idempotent; safe to run on every CI start.
set -euo pipefail

log() { printf '[ensure-chromium] %s\n' "$*" >&2; }
browser=${WORKCELL_CHROMIUM:-/usr/bin/chromium}

if [ -x "$browser" ]; then
  log "Chromium is available ($("$browser" --version 2>/dev/null | head -1))."
  exit 0
fi

if [ "$(id -u)" != "0" ]; then
  log "No Chromium at $browser and this script is not running as root."
  log "Fix: sudo apt-get install -y chromium (or set WORKCELL_CHROMIUM to a Chromium binary)."
  exit 1
fi

log "Installing Debian's chromium package..."
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq chromium >/dev/null
log "Chromium is available ($(/usr/bin/chromium --version 2>/dev/null | head -1))."
