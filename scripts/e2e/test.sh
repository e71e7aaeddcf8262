#!/usr/bin/env bash
# The e2e lane: the whole path on a real node (test/e2e/). Builds what it needs
# into the cache outside the clone (kube-apiserver, etcd, the kubelet, the
# controller manager and the scheduler; SPIRE server and agent and
# spire-controller-manager; our image and the lane's images), then runs the
# lane's tests. Where the machine cannot run a node (no Go, not root, no
# containerd, runc, buildah or mmdebstrap) it says why and skips, as the other
# real lanes do.
#
#   npm run test:e2e                 # every file of test/e2e
#   npm run test:e2e -- whole-path   # vitest filters as usual
set -euo pipefail
cd "$(dirname "$0")/../.."
missing=""
[[ "$(id -u)" == 0 ]] || missing="root (containerd and the kubelet manage mounts and cgroups)"
for tool in go buildah mmdebstrap containerd containerd-shim-runc-v2 ctr runc; do
  command -v "$tool" >/dev/null 2>&1 || missing="${missing:+$missing, }$tool"
done
[[ -x /usr/lib/cni/loopback ]] || missing="${missing:+$missing, }the CNI loopback plugin (containernetworking-plugins)"
if [[ -n "$missing" ]]; then
  echo "test:e2e: SKIPPED: this machine lacks $missing (Debian: apt-get install -y containerd runc containernetworking-plugins buildah mmdebstrap)" >&2
  exit 0
fi
started=$SECONDS
bash scripts/real-k8s/build.sh >/dev/null
# SPIRE's programs and the peer come from the Go module proxy; one it stops serving skips
# the lane, loudly, as it skips the other lanes' tests that need them.
if ! bash scripts/real-spire/install.sh --agent --peer >/dev/null; then
  echo "test:e2e: SKIPPED: spire-server, spire-agent or spire-controller-manager could not be built (scripts/real-spire/install.sh --agent --peer)" >&2
  exit 0
fi
bash scripts/image/build.sh >/dev/null
bash scripts/e2e/images.sh >/dev/null
echo "test:e2e: binaries and images ready in $((SECONDS - started)) s"
tests=$SECONDS
npx vitest run --config vitest.e2e.config.ts "$@"
echo "test:e2e: tests took $((SECONDS - tests)) s"
