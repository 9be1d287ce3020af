#!/usr/bin/env bash
# Builds the platform's image with podman from infra/container/Containerfile, unchanged:
#   infra/container/build.sh [TAG]        (default devplat:dev)
# Where the official base cannot be pulled, a local stand-in of it is made first (stand-in-base.sh).
# The last build stage (prod: the installs and the runtime tree) is kept as TAG-build, the next
# build's cache; the images a build replaces (both tags' previous ones, when nothing else uses them)
# are removed, so rebuilds do not pile up. Prints the image's size as the base's and the app's:
# the layers this file adds above the base.
set -euo pipefail
cd "$(dirname "$0")/../.."
export CONTAINERS_CONF=${CONTAINERS_CONF:-$PWD/infra/container/containers.conf}
tag=${1:-devplat:dev}
base=$(sed -n 's/^ARG NODE_IMAGE=//p' infra/container/Containerfile)
if ! podman image exists "$base"; then
  timeout 30 podman pull -q "$base" >/dev/null 2>&1 || infra/container/stand-in-base.sh "$base"
fi
image_id() { podman image inspect --format '{{.Id}}' "$1" 2>/dev/null || true; }
previous=("$(image_id "$tag")" "$(image_id "$tag-build")")
started=$(date +%s)
build=(podman build --pull=never --network host --layers -f infra/container/Containerfile)
[[ -n ${NODE_EXTRA_CA_CERTS:-} && -f $NODE_EXTRA_CA_CERTS ]] && build+=(--secret "id=extra_ca,src=$NODE_EXTRA_CA_CERTS")
"${build[@]}" --target prod -t "$tag-build" . >&2
"${build[@]}" -t "$tag" . >&2
for id in "${previous[@]}"; do
  [[ -z $id || $id == "$(image_id "$tag")" || $id == "$(image_id "$tag-build")" ]] ||
    podman rmi "$id" >/dev/null 2>&1 || true # still in use (a container, another tag): kept
done
size=$(podman image inspect --format '{{.Size}}' "$tag")
base_size=$(podman image inspect --format '{{.Size}}' "$base")
echo "[image] built $tag in $(($(date +%s) - started)) s: $((size / 1000000)) MB =" \
  "base $((base_size / 1000000)) MB ($base) + app $(((size - base_size) / 1000000)) MB" >&2
