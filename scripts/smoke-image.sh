#!/usr/bin/env bash
# The container image's contents, checked without a Docker engine (none runs
# on the project's machines): the same steps as the Dockerfile's two stages,
# in a temporary directory, with the Node that runs npm scripts. The runtime
# stage gets production dependencies only, so an import of a dev dependency
# from src/ fails here, as it would in the image. The compiled CLI then serves
# the in-memory SPIRE server and runs validate, plan and reconcile --once
# against the demo's manifests.
#
#   npm run smoke:image
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
node="$repo/node_modules/.bin/node"
work="$(mktemp -d)"
spire_pid=""
run_pid=""
cleanup() {
  if [ -n "$run_pid" ]; then kill "$run_pid" 2>/dev/null || true; fi
  if [ -n "$spire_pid" ]; then kill "$spire_pid" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT

echo "build stage: npm ci, tsc -p tsconfig.build.json"
mkdir -p "$work/build" "$work/app"
cp "$repo"/package.json "$repo"/package-lock.json "$repo"/.npmrc "$repo"/tsconfig.json "$repo"/tsconfig.build.json "$work/build/"
cp -r "$repo/src" "$work/build/src"
(cd "$work/build" && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error && "$node" node_modules/typescript/bin/tsc -p tsconfig.build.json)

echo "runtime stage: production dependencies, dist, proto, crds"
cp "$repo"/package.json "$repo"/package-lock.json "$repo"/.npmrc "$work/app/"
(cd "$work/app" && NODE_ENV=production npm ci --omit=dev --ignore-scripts --no-audit --no-fund --loglevel=error)
cp -r "$work/build/dist" "$work/app/dist"
cp -r "$repo/proto" "$work/app/proto"
cp -r "$repo/crds" "$work/app/crds"
mkdir -p "$work/app/bin"
cp "$repo/scripts/image/entrypoint.sh" "$work/app/bin/entrypoint.sh"

echo "entrypoint: the old space sized from the memory limit, two malloc arenas, then the CLI"
printf '1073741824\n' > "$work/memory.max"
sized=$(SPIRE_RECONCILER_CGROUP_MEMORY_MAX="$work/memory.max" NODE_OPTIONS='' sh -c "$(sed 's/^exec node .*/echo "$NODE_OPTIONS|$MALLOC_ARENA_MAX"/' "$repo/scripts/image/entrypoint.sh")")
[ "$sized" = " --max-old-space-size=864 --max-semi-space-size=16|2" ] || { echo "entrypoint: a 1 GiB limit gave NODE_OPTIONS|MALLOC_ARENA_MAX '$sized'"; exit 1; }
kept=$(MALLOC_ARENA_MAX=4 SPIRE_RECONCILER_CGROUP_MEMORY_MAX="$work/memory.max" NODE_OPTIONS='' sh -c "$(sed 's/^exec node .*/echo "$MALLOC_ARENA_MAX"/' "$repo/scripts/image/entrypoint.sh")")
[ "$kept" = "4" ] || { echo "entrypoint: MALLOC_ARENA_MAX=4 in the environment became '$kept'"; exit 1; }
(cd "$work/app" && PATH="$(dirname "$(readlink -f "$node")"):$PATH" NODE_ENV=production bin/entrypoint.sh --help >/dev/null)

cli() { (cd "$work/app" && NODE_ENV=production "$node" dist/cli/main.js "$@"); }
demo="$repo/examples/demo"
socket="$work/api.sock"

cli --help >/dev/null
cli validate "$demo/manifests"
(cd "$work/app" && NODE_ENV=production exec "$node" dist/cli/main.js memory-spire --socket "$socket" --trust-domain demo.example --seed "$demo/spire-entries.json") >"$work/spire.log" 2>&1 &
spire_pid=$!
for _ in $(seq 1 100); do
  grep -q listening "$work/spire.log" && break
  sleep 0.1
done
grep -q listening "$work/spire.log" || { cat "$work/spire.log"; echo "memory-spire did not start" >&2; exit 1; }
cli plan --config "$demo/config.yaml" --manifests "$demo/manifests" --socket "$socket" >/dev/null
cli reconcile --once --config "$demo/config.yaml" --manifests "$demo/manifests" --socket "$socket" | tail -1
# A second pass finds nothing to do: what the first wrote is what the manifests declare.
second="$(cli reconcile --once --config "$demo/config.yaml" --manifests "$demo/manifests" --socket "$socket" | tail -1)"
echo "$second"
case "$second" in
  *"0 created, 0 updated, 0 deleted, 0 failed"*) ;;
  *) echo "the second reconcile was not empty" >&2; exit 1 ;;
esac

# The image runs in / (its WORKDIR) with spire-controller-manager's arguments, as
# the helm chart gives them: flags, no command, a config path relative to /.
# Here a directory stands in for /, the compiled CLI named by its absolute path.
root="$work/root"
mkdir -p "$root"
grep -v '^spireServerSocketPath:' "$demo/config.yaml" >"$root/controller-manager-config.yaml"
printf 'spireServerSocketPath: %s\nstaticManifestPath: %s\n' "$socket" "$demo/manifests" >>"$root/controller-manager-config.yaml"
version="$(cd "$root" && NODE_ENV=production "$node" "$work/app/dist/cli/main.js" --version)"
echo "--version: $version"
(cd "$root" && NODE_ENV=production exec "$node" "$work/app/dist/cli/main.js" --config=controller-manager-config.yaml --zap-log-level=info --zap-encoder=json) >"$work/upstream-args.log" 2>&1 &
run_pid=$!
for _ in $(seq 1 300); do
  grep -q '"msg":"reconciled"' "$work/upstream-args.log" && break
  sleep 0.1
done
grep -q '"msg":"reconciled"' "$work/upstream-args.log" || { cat "$work/upstream-args.log"; echo "upstream's arguments did not start a reconcile" >&2; exit 1; }
kill -TERM "$run_pid"
wait "$run_pid"
run_pid=""
echo "upstream's container arguments, config relative to the working directory: ok"
echo "image contents: ok"
