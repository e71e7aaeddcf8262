#!/bin/sh
# The OCI runtime the test harness gives containerd and podman: runc, after two
# edits to the bundle's config.json that these test machines need and a real
# node does not. Test harness only; nothing a user deploys goes through it.
#
# The machines' VMs run root without CAP_SYS_RESOURCE, so:
# - no process may lower its oom_score_adj below 0, and the kubelet gives every
#   pod sandbox -998: runc fails with "failed to update /proc/self/oom_score_adj:
#   Permission denied", which containerd reports only as "can't get final
#   child's PID from pipe: EOF". A negative oomScoreAdj becomes 0.
# - runc applies rlimits to the container's process after it has changed to the
#   image's user, and setting another user's limits needs that capability:
#   podman (which always sets RLIMIT_NOFILE and RLIMIT_NPROC) fails with "error
#   setting rlimits for ready process ... operation not permitted". rlimits go,
#   so the container keeps the limits it inherits.
# Both are JSON as runtimes write it (compact, one line), edited in place.
runc="${REAL_NODE_RUNC:-runc}"
bundle=""
prev=""
for arg in "$@"; do
  case "$prev" in --bundle | -b) bundle="$arg" ;; esac
  case "$arg" in --bundle=*) bundle="${arg#--bundle=}" ;; esac
  prev="$arg"
done
if [ -n "$bundle" ] && [ -f "$bundle/config.json" ]; then
  sed -i -e 's/"oomScoreAdj":-[0-9]*/"oomScoreAdj":0/' -e 's/,"rlimits":\[[^]]*\]//' -e 's/"rlimits":\[[^]]*\],\{0,1\}//' "$bundle/config.json"
fi
exec "$runc" "$@"
