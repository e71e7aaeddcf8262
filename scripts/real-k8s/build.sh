#!/usr/bin/env bash
# Builds the kube-apiserver, etcd and etcdutl binaries that `npm run test:real`
# runs, and the kubelet, kube-controller-manager and kube-scheduler that
# `npm run test:e2e` adds, from the Go modules pinned in
# scripts/real-k8s/{kube-apiserver,etcd,etcdutl}/go.mod (the last three come from the
# same k8s.io/kubernetes as kube-apiserver, so the four share most of their
# compile work in Go's build cache: of the 2,416 packages the controller
# manager and the scheduler link, 163 are theirs alone), and kustomize, with
# which the e2e lane renders deploy/standalone (scripts/real-k8s/kustomize).
# Nothing prebuilt is downloaded: Go fetches module sources from its proxy and
# compiles them here.
#
# The binaries go to a cache outside the clone, so a fresh clone on the same
# machine (CI) reuses them:
#   ${SPIRE_RECONCILER_CACHE:-$HOME/.cache/spire-reconciler}/real-k8s/<name>-<version>/<name>
# A binary is rebuilt only when its folder has no stamp matching the go.mod
# and go.sum it was built from. Prints the binaries' paths at the end.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"

if ! command -v go >/dev/null 2>&1; then
  echo "real-k8s: 'go' is not on the PATH; the real API server lane needs Go 1.26 or newer" >&2
  exit 1
fi

cache_root="${SPIRE_RECONCILER_CACHE:-$HOME/.cache/spire-reconciler}/real-k8s"
mkdir -p "$cache_root"

# Two builds at once (two checkouts, or CI beside a developer) would both take
# minutes and race on the rename; the second waits for the first and then
# finds the binaries there.
exec 9>"$cache_root/.build.lock"
flock 9

# The version a go.mod pins for a module, read from its require line.
pinned_version() { # go.mod module
  awk -v m="$2" '$1 == m && $2 ~ /^v/ { print $2; exit } $1 == "require" && $2 == m { print $3; exit }' "$1"
}

stamp_of() { # module folder
  cat "$1/go.mod" "$1/go.sum" | sha256sum | cut -c1-16
}

build_one() { # name folder package version [ldflags...]
  local name="$1" dir="$2" pkg="$3" version="$4"
  shift 4
  local out="$cache_root/$name-$version"
  local stamp
  stamp="$(stamp_of "$dir")"
  if [[ -x "$out/$name" && "$(cat "$out/.stamp" 2>/dev/null)" == "$stamp" ]]; then
    echo "real-k8s: $name $version is cached in $out" >&2
    return
  fi
  echo "real-k8s: building $name $version (cold: tens of minutes on two cores; Go's caches make a rebuild quick)" >&2
  local started=$SECONDS tmp
  tmp="$(mktemp -d "$cache_root/.$name.XXXXXX")"
  # -mod=readonly: the committed go.sum is the whole truth; a build never
  # rewrites it. CGO off: both programs are pure Go and the result then runs
  # on any glibc. -s -w: no symbol tables, a quicker link, a smaller binary.
  (cd "$dir" && CGO_ENABLED=0 GOFLAGS=-mod=readonly nice -n 10 go build -trimpath \
    -ldflags "-s -w $*" -o "$tmp/$name" "$pkg")
  echo "$stamp" >"$tmp/.stamp"
  rm -rf "$out"
  mv "$tmp" "$out"
  echo "real-k8s: built $name $version in $((SECONDS - started)) s" >&2
}

k8s_version="$(pinned_version "$here/kube-apiserver/go.mod" k8s.io/kubernetes)"
etcd_version="$(pinned_version "$here/etcd/go.mod" go.etcd.io/etcd/server/v3)"
if [[ -z "$k8s_version" || -z "$etcd_version" ]]; then
  echo "real-k8s: could not read the pinned versions from scripts/real-k8s/*/go.mod" >&2
  exit 1
fi
minor="${k8s_version#v1.}"
minor="${minor%%.*}"

# kube-apiserver reports these in /version and --version; unset, it says v0.0.0-master.
version_pkg=k8s.io/component-base/version
k8s_ldflags="-X $version_pkg.gitVersion=$k8s_version -X $version_pkg.gitMajor=1 -X $version_pkg.gitMinor=$minor -X $version_pkg.gitTreeState=clean"
k8s_programs=(kube-apiserver kubelet kube-controller-manager kube-scheduler)
for name in "${k8s_programs[@]}"; do
  build_one "$name" "$here/kube-apiserver" "k8s.io/kubernetes/cmd/$name" "$k8s_version" "$k8s_ldflags"
done
# etcd's version is a constant of the go.etcd.io/etcd/api/v3 module go.mod pins with it.
build_one etcd "$here/etcd" go.etcd.io/etcd/server/v3 "$etcd_version"
# etcdutl restores a snapshot of etcd's data offline (test/real/etcd-restore.test.ts). A
# folder of its own, so etcd's stamp and binary stay as they are; the same release as etcd,
# since it writes the data directory that etcd then opens.
etcdutl_version="$(pinned_version "$here/etcdutl/go.mod" go.etcd.io/etcd/etcdutl/v3)"
if [[ "$etcdutl_version" != "$etcd_version" ]]; then
  echo "real-k8s: scripts/real-k8s/etcdutl/go.mod pins etcdutl $etcdutl_version, etcd/go.mod etcd $etcd_version: make them equal" >&2
  exit 1
fi
build_one etcdutl "$here/etcdutl" go.etcd.io/etcd/etcdutl/v3 "$etcdutl_version"
# kustomize renders deploy/standalone for the e2e lane, as `kubectl apply -k` does.
kustomize_version="$(pinned_version "$here/kustomize/go.mod" sigs.k8s.io/kustomize/kustomize/v5)"
build_one kustomize "$here/kustomize" sigs.k8s.io/kustomize/kustomize/v5 "$kustomize_version"

echo "$cache_root/kube-apiserver-$k8s_version/kube-apiserver"
echo "$cache_root/etcd-$etcd_version/etcd"
echo "$cache_root/etcdutl-$etcdutl_version/etcdutl"
echo "$cache_root/kustomize-$kustomize_version/kustomize"
for name in "${k8s_programs[@]:1}"; do echo "$cache_root/$name-$k8s_version/$name"; done
