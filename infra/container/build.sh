#!/usr/bin/env bash
# Builds the platform's image with podman from infra/container/Containerfile, unchanged:
#   infra/container/build.sh [TAG]        (default devplat:dev; prints the image's size)
# Where the official base cannot be pulled, a local stand-in of it is made first (stand-in-base.sh).
set -euo pipefail
cd "$(dirname "$0")/../.."
export CONTAINERS_CONF=${CONTAINERS_CONF:-$PWD/infra/container/containers.conf}
tag=${1:-devplat:dev}
base=$(sed -n 's/^ARG NODE_IMAGE=//p' infra/container/Containerfile)
if ! podman image exists "$base"; then
  timeout 30 podman pull -q "$base" >/dev/null 2>&1 || infra/container/stand-in-base.sh "$base"
fi
started=$(date +%s)
secret=()
[[ -n ${NODE_EXTRA_CA_CERTS:-} && -f $NODE_EXTRA_CA_CERTS ]] && secret=(--secret "id=extra_ca,src=$NODE_EXTRA_CA_CERTS")
podman build --pull=never --network host --layers "${secret[@]}" -f infra/container/Containerfile -t "$tag" . >&2
size=$(podman image inspect --format '{{.Size}}' "$tag")
echo "[image] built $tag in $(($(date +%s) - started)) s: $((size / 1000000)) MB (base $base)" >&2
