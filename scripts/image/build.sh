#!/usr/bin/env bash
# Builds the repository's Dockerfile into a container image with buildah (no
# Docker engine runs on the project's machines) and writes it as an archive:
#
#   npm run image:build            # prints the archive's path on its last line
#
# The Dockerfile's base, node:24-bookworm-slim, lives on a registry these
# machines cannot reach. When buildah's store has no image of that name, a
# stand-in is made under the same name: Debian bookworm's minbase (mmdebstrap,
# from the Debian mirror apt uses) with Node from the npm registry: the `node`
# binary this repository's `node` dev dependency installed (the version
# package.json pins) and npm from the registry, where the official image keeps
# them (/usr/local). Everything the Dockerfile does then runs as written.
#
# The build's RUN steps (npm ci) reach the npm registry with the host's npm
# configuration and CA bundle mounted in for the step only: nothing of them is
# in a layer. Users building with Docker need neither.
#
# Output, outside the clone so later runs and fresh clones reuse them:
#   $cache/containers/          buildah's store (--root, --runroot)
#   $cache/images/spire-reconciler.tar    docker-archive, tagged localhost/spire-reconciler:dev
# where cache is ${SPIRE_RECONCILER_CACHE:-$HOME/.cache/spire-reconciler}.
set -euo pipefail
repo="$(cd "$(dirname "$0")/../.." && pwd)"
cache="${SPIRE_RECONCILER_CACHE:-$HOME/.cache/spire-reconciler}"
# shellcheck source=buildah.sh
source "$repo/scripts/image/buildah.sh"

for tool in buildah mmdebstrap; do
  command -v "$tool" >/dev/null 2>&1 || {
    echo "image:build: '$tool' is not installed (Debian: apt-get install -y buildah mmdebstrap)" >&2
    exit 2
  }
done

base=docker.io/library/node:24-bookworm-slim
image=localhost/spire-reconciler:dev
out="$cache/images/spire-reconciler.tar"
mkdir -p "$cache/images"
exec 9>"$cache/images/.build.lock"
flock 9

if ! bah inspect --type image "$base" >/dev/null 2>&1; then
  node_bin="$(readlink -f "$repo/node_modules/node/bin/node" 2>/dev/null || true)"
  [[ -x "$node_bin" ]] || { echo "image:build: run npm ci first (the stand-in base takes Node from the node dev dependency)" >&2; exit 2; }
  node_version="$("$node_bin" --version)"
  echo "image:build: making a stand-in for $base: Debian bookworm minbase, Node $node_version" >&2
  work="$(mktemp -d)"
  trap 'rm -rf "$work"' EXIT
  mmdebstrap --quiet --variant=minbase bookworm "$work/rootfs.tar" /etc/apt/sources.list.d/debian.sources 2>/dev/null ||
    mmdebstrap --quiet --variant=minbase bookworm "$work/rootfs.tar" http://deb.debian.org/debian
  mkdir -p "$work/usr/local/bin" "$work/usr/local/lib"
  cp "$node_bin" "$work/usr/local/bin/node"
  # The npm that `npm install -g` puts where the official image has it.
  npm install --global --prefix "$work/usr/local" --no-audit --no-fund --loglevel=error "npm@$(npm --version)" >/dev/null
  ctr="$(bah from scratch)"
  bah add "$ctr" "$work/rootfs.tar" /
  bah copy "$ctr" "$work/usr/local" /usr/local
  bah config --env PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin --env "NODE_VERSION=${node_version#v}" \
    --cmd node --label org.opencontainers.image.description="stand-in for $base, made by scripts/image/build.sh" "$ctr"
  bah commit --quiet "$ctr" "$base" >/dev/null
  bah rm "$ctr" >/dev/null
fi

started=$SECONDS
# The host's CA bundle and npm settings for the build's npm ci, so it reaches
# the npm registry as the host does; mounted for RUN steps only.
npmrc="$(mktemp)"
printf 'cafile=/etc/ssl/certs/ca-certificates.crt\nregistry=%s\nupdate-notifier=false\n' "$(npm config get registry)" >"$npmrc"
bah bud --quiet --pull=never --network host --layers \
  --volume /etc/ssl/certs/ca-certificates.crt:/etc/ssl/certs/ca-certificates.crt:ro \
  --volume "$npmrc":/usr/local/etc/npmrc:ro \
  -t "$image" -f "$repo/Dockerfile" "$repo" >/dev/null
rm -f "$npmrc"
rm -f "$out.partial"
bah push --quiet "$image" "docker-archive:$out.partial:$image" >/dev/null
mv "$out.partial" "$out"
echo "image:build: $image built in $((SECONDS - started)) s: $(bah images --noheading --format '{{.Size}}' "$image") ($(du -m "$out" | cut -f1) MiB as an archive)" >&2
echo "$out"
