#!/usr/bin/env bash
# Installs the real SPIRE server (with --old, also a SPIRE server older than
# 1.8.0; with --peer, spire-controller-manager; with --agent, the SPIRE agent
# of the server's release) at the versions pinned in versions.env, built by
# `go` from the Go module proxy, into a cache outside the clone:
#   ${SPIRE_RECONCILER_CACHE:-$HOME/.cache/spire-reconciler}/real-spire/spire-server-<v>/spire-server
#   ${SPIRE_RECONCILER_CACHE:-$HOME/.cache/spire-reconciler}/real-spire/spire-server-<v>/spire-agent
#   ${SPIRE_RECONCILER_CACHE:-$HOME/.cache/spire-reconciler}/real-spire/spire-controller-manager-<v>/spire-controller-manager
# A binary already there is kept. Prints the path of each binary, one a line.
#
# Why not `go install module/cmd@version`: it asks the proxy for the module's
# version list (to report deprecation), which the proxy refuses (403) for these
# modules, and go install then stops. So each program is built from a throwaway
# module that requires it at its exact version (go build -mod=mod), which only
# fetches exact versions. Nothing of SPIRE's or spire-controller-manager's source
# is kept in this repository: it comes from the module cache.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
# shellcheck source=versions.env
source "$here/versions.env"

want_peer=0
want_old=0
want_agent=0
for arg in "$@"; do
  case "$arg" in
    --peer) want_peer=1 ;;
    --old) want_old=1 ;;
    --agent) want_agent=1 ;;
    *) echo "usage: $0 [--peer] [--old] [--agent]" >&2; exit 2 ;;
  esac
done

if ! command -v go >/dev/null 2>&1; then
  echo "install.sh: go is not on PATH; the real-SPIRE lane needs a Go toolchain (1.26 or later)" >&2
  exit 2
fi

cache="${SPIRE_RECONCILER_CACHE:-$HOME/.cache/spire-reconciler}/real-spire"

# build MODULE VERSION PACKAGE OUT [replace...]
build() {
  local module="$1" version="$2" package="$3" out="$4"
  shift 4
  if [[ -x "$out" ]]; then
    echo "$out"
    return
  fi
  local work
  work="$(mktemp -d)"
  # The go directive is raised by go itself to what the module requires.
  printf 'module spire-reconciler.local/build\n\ngo 1.26\n\nrequire %s %s\n' "$module" "$version" >"$work/go.mod"
  for replace in "$@"; do
    (cd "$work" && go mod edit -replace "$replace")
  done
  local started=$SECONDS
  echo "install.sh: building $package@$version (a cold build takes minutes)" >&2
  mkdir -p "$(dirname "$out")"
  # Build to a temporary name and rename, so an interrupted build leaves no binary behind.
  (cd "$work" && GOFLAGS=-mod=mod go build -trimpath -o "$out.partial" "$package")
  mv "$out.partial" "$out"
  rm -rf "$work"
  echo "install.sh: built $out in $((SECONDS - started)) s" >&2
  echo "$out"
}

build github.com/spiffe/spire "$SPIRE_VERSION" github.com/spiffe/spire/cmd/spire-server \
  "$cache/spire-server-$SPIRE_VERSION/spire-server" \
  "github.com/Keyfactor/ejbca-go-client-sdk=github.com/Keyfactor/ejbca-go-client-sdk@$SPIRE_EJBCA_SDK_VERSION"

if [[ $want_agent == 1 ]]; then
  build github.com/spiffe/spire "$SPIRE_VERSION" github.com/spiffe/spire/cmd/spire-agent \
    "$cache/spire-server-$SPIRE_VERSION/spire-agent" \
    "github.com/Keyfactor/ejbca-go-client-sdk=github.com/Keyfactor/ejbca-go-client-sdk@$SPIRE_EJBCA_SDK_VERSION"
fi

if [[ $want_old == 1 ]]; then
  GONOSUMDB="$SPIRE_OLD_UNCHECKED_MODULE" build github.com/spiffe/spire "$SPIRE_OLD_VERSION" github.com/spiffe/spire/cmd/spire-server \
    "$cache/spire-server-$SPIRE_OLD_VERSION/spire-server"
fi

if [[ $want_peer == 1 ]]; then
  build github.com/spiffe/spire-controller-manager "$SPIRE_CONTROLLER_MANAGER_VERSION" \
    github.com/spiffe/spire-controller-manager/cmd \
    "$cache/spire-controller-manager-$SPIRE_CONTROLLER_MANAGER_VERSION/spire-controller-manager"
fi
