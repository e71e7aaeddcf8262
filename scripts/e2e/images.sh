#!/usr/bin/env bash
# The images the e2e lane's node runs besides ours, each one Go binary in an
# image from scratch, built with buildah the way image:build builds ours:
#   pause                     the pod sandbox (test/e2e/images/pause)
#   workload                  holds its SVID, writes it down (test/e2e/images/workload)
#   podprobe                  says what a pod reaches: the API server in-cluster,
#                             a URL; serves a webhook (test/e2e/images/podprobe)
#   spire-server, spire-agent SPIRE's programs (scripts/real-spire/install.sh --agent)
#   spire-controller-manager  the peer (install.sh --peer)
# SPIRE's programs and the peer are built with cgo (SPIRE's sqlite datastore
# needs it), so they link glibc dynamically: the libraries ldd names are copied
# in at their paths, as a distroless base image would hold them.
# Each is written to $cache/images/<name>.tar as a docker-archive tagged
# localhost/<name>:e2e, and rebuilt only when its binary changed. Prints one
# "name path" line per image.
set -euo pipefail
repo="$(cd "$(dirname "$0")/../.." && pwd)"
# shellcheck source=../image/buildah.sh
source "$repo/scripts/image/buildah.sh"
mkdir -p "$cache/images" "$cache/e2e-bin"
exec 9>"$cache/images/.build.lock"
flock 9

# The test programs: static, so they need nothing from the image.
(cd "$repo/test/e2e/images" && CGO_ENABLED=0 GOFLAGS=-mod=readonly go build -trimpath -ldflags "-s -w" -o "$cache/e2e-bin/" ./pause ./workload ./podprobe)

spire=()
while read -r path; do spire+=("$path"); done < <(bash "$repo/scripts/real-spire/install.sh" --agent --peer)
bin_of() { # basename
  for p in "${spire[@]}"; do [[ "$(basename "$p")" == "$1" ]] && { echo "$p"; return; }; done
  echo "images.sh: install.sh built no $1" >&2
  exit 1
}

image() { # name binary [entrypoint argument...]
  local name="$1" bin="$2" out="$cache/images/$1.tar" stamp entrypoint="[\"/$1\""
  shift 2
  for a in "$@"; do entrypoint+=", \"$a\""; done
  entrypoint+="]"
  stamp="$(cat "$bin" "$0" | sha256sum | cut -c1-16)"
  if [[ ! -f "$out" || "$(cat "$out.stamp" 2>/dev/null)" != "$stamp" ]]; then
    local ctr
    ctr="$(bah from scratch)"
    bah copy "$ctr" "$bin" "/$name" >/dev/null
    local lib
    for lib in $(ldd "$bin" 2>/dev/null | grep -o '/[^ ]*' || true); do
      bah copy "$ctr" "$(readlink -f "$lib")" "$lib" >/dev/null
    done
    bah config --entrypoint "$entrypoint" --cmd '' "$ctr"
    bah commit --quiet "$ctr" "localhost/$name:e2e" >/dev/null
    bah rm "$ctr" >/dev/null
    rm -f "$out"
    bah push --quiet "localhost/$name:e2e" "docker-archive:$out:localhost/$name:e2e" >/dev/null
    echo "$stamp" >"$out.stamp"
  fi
  echo "$name $out"
}

image pause "$cache/e2e-bin/pause"
image workload "$cache/e2e-bin/workload"
image podprobe "$cache/e2e-bin/podprobe"
# As SPIRE's own images: the entrypoint runs the program's `run` command.
image spire-server "$(bin_of spire-server)" run
image spire-agent "$(bin_of spire-agent)" run
image spire-controller-manager "$(bin_of spire-controller-manager)"
