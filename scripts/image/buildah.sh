# Sourced by the image scripts: buildah and podman on a store of this
# project's own, outside the clone, so a build never touches the machine's
# default container store and later runs reuse its layers.
cache="${SPIRE_RECONCILER_CACHE:-$HOME/.cache/spire-reconciler}"
store_args=(--root "$cache/containers/storage" --runroot "$cache/containers/run" --storage-driver overlay)
bah() { buildah "${store_args[@]}" "$@"; }
pod() { podman "${store_args[@]}" --cgroup-manager cgroupfs --events-backend file "$@"; }
