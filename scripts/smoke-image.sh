#!/usr/bin/env bash
# The container image, run: builds it (npm run image:build, which reuses a
# build whose inputs have not changed) and runs the image itself with podman,
# as a pod would: its entrypoint, its user, a read-only root file system and no
# capabilities. It serves the in-memory SPIRE server from one container, and
# validate, plan and reconcile --once run in others against the demo's
# manifests (the build's compile cache read, nothing compiled anew); then the
# image runs with spire-controller-manager's arguments, as
# the helm chart gives them, until it has reconciled.
#
#   npm run smoke:image
#
# Needs buildah, mmdebstrap and podman (Debian packages of those names).
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
# shellcheck source=image/buildah.sh
source "$repo/scripts/image/buildah.sh"
command -v podman >/dev/null 2>&1 || { echo "smoke:image: podman is not installed (Debian: apt-get install -y podman)" >&2; exit 2; }

bash "$repo/scripts/image/build.sh" >/dev/null
image=localhost/spire-reconciler:dev
# The machines' VMs lack CAP_SYS_RESOURCE; see the wrapper's comment.
runtime="$repo/test/support/real-node/runc-wrapper.sh"
work="$(mktemp -d)"
names=()
cleanup() {
  for n in "${names[@]}"; do pod rm -f -t 0 "$n" >/dev/null 2>&1 || true; done
  rm -rf "$work"
}
trap cleanup EXIT

demo="$repo/examples/demo"
mkdir -p "$work/sock"
chmod 0777 "$work/sock"
# What the chart's container gets: no capabilities, no privilege escalation,
# nothing written to the image's file system.
run() { pod run --network host --runtime "$runtime" --read-only --cap-drop ALL --security-opt no-new-privileges \
  -v "$demo:/demo:ro" -v "$work/sock:/sock" "$@"; }
cli() { run --rm "$image" "$@"; }

echo "image: $(pod image inspect --format '{{.Id}}' "$image" | cut -c1-12), $(($(pod image inspect --format '{{.Size}}' "$image") / 1048576)) MiB"
echo "--version: $(cli --version)"
# The bundle holds every package's code: the image has no node_modules to fall back on.
run --rm --entrypoint sh "$image" -c 'test ! -e /app/node_modules' || { echo "the image has /app/node_modules" >&2; exit 1; }
# The compile cache filled at build time is read on a read-only root: the
# bin and the bundle beside it (all of the CLI) have their code there, and
# nothing is compiled anew.
cache_log="$(run --rm -e NODE_DEBUG_NATIVE=COMPILE_CACHE "$image" validate /demo/manifests 2>&1)"
accepted="$(grep -c 'was accepted' <<<"$cache_log" || true)"
compiled="$(grep -c 'was not initialized\|was rejected' <<<"$cache_log" || true)"
if ! grep -q 'dist/cli/bin.js was accepted' <<<"$cache_log" || ! grep -q 'dist/cli/main.js was accepted' <<<"$cache_log" || [ "$compiled" -ne 0 ]; then
  echo "compile cache: $accepted modules read from it, $compiled compiled anew:" >&2
  grep '^\[compile cache\]' <<<"$cache_log" | head -5 >&2
  exit 1
fi
echo "compile cache: bin.js and the bundle read from it ($accepted modules), none compiled anew, read-only root"
cli --help >/dev/null
cli validate /demo/manifests

name="smoke-spire-$$"
names+=("$name")
run -d --name "$name" --memory 1g "$image" memory-spire --socket /sock/api.sock --trust-domain demo.example --seed /demo/spire-entries.json >/dev/null
for _ in $(seq 1 100); do
  pod logs "$name" 2>&1 | grep -q listening && break
  sleep 0.2
done
pod logs "$name" 2>&1 | grep -q listening || { pod logs "$name"; echo "memory-spire did not start in the image" >&2; exit 1; }

# The entrypoint sized V8 from the container's 1 GiB limit (cgroup v1 or v2,
# whichever the host has): the running process's environment says so.
pid="$(pod inspect --format '{{.State.Pid}}' "$name")"
environ="$(tr '\0' '\n' <"/proc/$pid/environ")"
grep -qx 'NODE_OPTIONS=--expose-gc --max-old-space-size=864 --max-semi-space-size=16' <<<"$environ" || {
  echo "entrypoint: with a 1 GiB limit the process has $(grep NODE_OPTIONS <<<"$environ" || echo 'no NODE_OPTIONS')" >&2
  exit 1
}
grep -qx 'MALLOC_ARENA_MAX=2' <<<"$environ" || { echo "entrypoint: MALLOC_ARENA_MAX is not 2" >&2; exit 1; }
echo "entrypoint: a 1 GiB memory limit gave --max-old-space-size=864, MALLOC_ARENA_MAX=2, and --expose-gc"

cli plan --config /demo/config.yaml --manifests /demo/manifests --socket /sock/api.sock >/dev/null
cli reconcile --once --config /demo/config.yaml --manifests /demo/manifests --socket /sock/api.sock | tail -1
# A second pass finds nothing to do: what the first wrote is what the manifests declare.
second="$(cli reconcile --once --config /demo/config.yaml --manifests /demo/manifests --socket /sock/api.sock | tail -1)"
echo "$second"
case "$second" in
  *"0 created, 0 updated, 0 deleted, 0 failed"*) ;;
  *) echo "the second reconcile was not empty" >&2; exit 1 ;;
esac

# spire-controller-manager's arguments as the helm chart gives them: flags, no
# command, a config mounted at /controller-manager-config.yaml and named
# relative to the image's working directory.
grep -v '^spireServerSocketPath:' "$demo/config.yaml" >"$work/controller-manager-config.yaml"
printf 'spireServerSocketPath: /sock/api.sock\nstaticManifestPath: /demo/manifests\n' >>"$work/controller-manager-config.yaml"
name="smoke-chart-$$"
names+=("$name")
run -d --name "$name" -v "$work/controller-manager-config.yaml:/controller-manager-config.yaml:ro" "$image" \
  --config=controller-manager-config.yaml --zap-log-level=info --zap-encoder=json >/dev/null
for _ in $(seq 1 150); do
  pod logs "$name" 2>&1 | grep -q '"msg":"reconciled"' && break
  sleep 0.2
done
pod logs "$name" 2>&1 | grep -q '"msg":"reconciled"' || { pod logs "$name"; echo "upstream's arguments did not start a reconcile" >&2; exit 1; }
pod stop -t 10 "$name" >/dev/null
code="$(pod inspect --format '{{.State.ExitCode}}' "$name")"
[ "$code" = 0 ] || { pod logs "$name" | tail -20; echo "the controller exited $code on SIGTERM" >&2; exit 1; }
echo "upstream's container arguments, config relative to the working directory, read-only root: ok"
echo "image: ok"
