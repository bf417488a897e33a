#!/usr/bin/env bash
# Ensures the Debian base image that Dockerfile.sandbox starts FROM exists locally.
# Order: already present → done; `docker pull` works → done; otherwise build it from
# Debian's packages with debootstrap and `docker import` it under the same tag, so the
# Dockerfile builds unchanged on machines without a reachable container registry.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
tag=${1:-$(awk '/^FROM /{print $2; exit}' "$here/../Dockerfile.sandbox")}
suite=${DEBIAN_SUITE:-bookworm}
mirror=${DEBIAN_MIRROR:-http://deb.debian.org/debian}

log() { printf '[base-image] %s\n' "$*" >&2; }

if docker image inspect "$tag" >/dev/null 2>&1; then
  log "$tag is present."
  exit 0
fi

log "Pulling $tag..."
if timeout "${PULL_TIMEOUT_S:-60}" docker pull "$tag" >&2; then
  exit 0
fi

log "Pull failed; building $tag locally with debootstrap ($suite from $mirror)."
if [ "$(id -u)" != "0" ]; then
  log "debootstrap needs root. Fix: run 'sudo $0', or make '$tag' pullable."
  exit 1
fi
if ! command -v debootstrap >/dev/null 2>&1; then
  log "Installing debootstrap from Debian's packages..."
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq debootstrap >/dev/null \
    || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq debootstrap >/dev/null; }
fi

root=$(mktemp -d /tmp/workcell-base.XXXXXX)
trap 'rm -rf "$root"' EXIT
debootstrap --variant=minbase "$suite" "$root" "$mirror" 2>&1 | \
  while IFS= read -r line; do case "$line" in I:\ Retrieving*|I:\ Validating*) ;; *) log "$line" ;; esac; done
[ -x "$root/bin/sh" ] || { log "debootstrap did not produce a root filesystem."; exit 1; }

# Same apt sources a pulled image would have, and a small footprint.
cat >"$root/etc/apt/sources.list" <<SOURCES
deb $mirror $suite main
deb $mirror $suite-updates main
SOURCES
rm -rf "$root"/var/cache/apt/archives/*.deb "$root"/var/lib/apt/lists/*

log "Importing into Docker as $tag..."
tar -C "$root" -c . | docker import \
  --change 'CMD ["bash"]' \
  --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
  - "$tag" >&2
log "Built $tag."
