#!/bin/sh
# The container image's entrypoint: sizes V8's old space from the container's
# memory limit, then runs the CLI (dist/cli/bin.js) with the arguments given.
#
# Left alone, V8 lets a controller's heap grow to several times what it keeps
# between garbage collections before it collects (at 100,000 pods: 200 MiB
# kept, 580 MiB reached), and the pages it reached stay resident. A limit
# makes it collect harder instead, so memory follows the limit rather than the
# machine's. The young generation is held to 3 x 16 MiB (V8 lets it reach
# 192 MiB), and under a limit below 512 MiB (a cluster of up to about 10,000
# pods) to 3 x 2 MiB: there a pass's garbage is small, and a young generation
# that reaches 16 MiB semi-spaces stays resident for little CPU saved
# (docs/performance.md "Small clusters"). About 160 MiB of the process is
# not old space (code, the young generation, buffers), so the old space gets
# the limit less that, and at least half of it. At 100,000 pods with a 768 MiB limit (old space 608 MiB)
# the controller's resident memory peaked at 435-455 MiB instead of 608-621 MiB,
# for about a fifth more CPU at start (npm run bench, docs/performance.md "Memory").
# NODE_OPTIONS that already sets --max-old-space-size or --max-semi-space-size
# wins for that flag; without a memory limit neither is set.
#
# glibc's malloc gives threads that allocate (V8's collector helpers, libuv's
# pool) arenas of their own and keeps what each has reached: at 100,000 pods
# those held 44-64 MiB resident, and 33-34 MiB with two arenas (npm run bench).
# MALLOC_ARENA_MAX set in the environment wins.
#
# --expose-gc lets the admission webhook ask V8 for a young collection after
# every 2 MiB of request bodies it reads (src/webhook/young-garbage.ts): the
# buffers Node reads a connection's data into die young, but data arriving
# alone brings V8's own collections on late, and 100 clients sending 8 MB
# each took the controller to 305-310 MiB resident under deploy/'s 256 Mi
# limit without it, 214-236 MiB with it (test/faults/webhook-flood.slow.test.ts).
set -eu
export MALLOC_ARENA_MAX="${MALLOC_ARENA_MAX:-2}"
case " ${NODE_OPTIONS:-} " in
*" --expose-gc "* | *" --expose_gc "*) ;;
*) export NODE_OPTIONS="${NODE_OPTIONS:+$NODE_OPTIONS }--expose-gc" ;;
esac
# cgroup v2 names the limit memory.max; v1 (still the default of some nodes)
# memory/memory.limit_in_bytes, with a huge number for "no limit".
limit=$(cat "${SPIRE_RECONCILER_CGROUP_MEMORY_MAX:-/sys/fs/cgroup/memory.max}" 2>/dev/null ||
  cat "${SPIRE_RECONCILER_CGROUP_V1_MEMORY_LIMIT:-/sys/fs/cgroup/memory/memory.limit_in_bytes}" 2>/dev/null || echo max)
case "$limit" in
'' | max | *[!0-9]*) mib= ;;
*)
  mib=$((limit / 1048576))
  # A limit of a terabyte or more is no limit.
  if [ "$mib" -ge 1048576 ]; then mib=; fi
  ;;
esac
if [ -n "$mib" ]; then
  case "${NODE_OPTIONS:-}" in
  *--max-old-space-size*) ;;
  *)
    heap=$((mib - 160))
    if [ "$heap" -lt $((mib / 2)) ]; then heap=$((mib / 2)); fi
    export NODE_OPTIONS="${NODE_OPTIONS:-} --max-old-space-size=$heap"
    ;;
  esac
  case "${NODE_OPTIONS:-}" in
  *--max-semi-space-size*) ;;
  *)
    semi=16
    if [ "$mib" -lt 512 ]; then semi=2; fi
    export NODE_OPTIONS="${NODE_OPTIONS:-} --max-semi-space-size=$semi"
    ;;
  esac
fi
# V8's own flags, which NODE_OPTIONS refuses, go on node's command line.
# Under a limit below 512 MiB V8's optimizing compilers (Maglev and
# TurboFan) are off, its baseline compiler the top tier (--max-opt=1): in a
# cluster that small their compilations keep more memory resident (their
# code, the binary's pages that run them, the heaps malloc holds for their
# work) than the CPU they save is worth, and at 1,000 pods they saved none
# (docs/performance.md "Small clusters"); only a cold start of thousands of
# pods costs more CPU without them. SPIRE_RECONCILER_V8_FLAGS, when set
# (empty included), replaces this choice.
v8flags=
if [ -n "$mib" ] && [ "$mib" -lt 512 ]; then v8flags=--max-opt=1; fi
v8flags=${SPIRE_RECONCILER_V8_FLAGS-$v8flags}
# shellcheck disable=SC2086 # the flags are words of their own
exec node $v8flags "$(dirname "$0")/../dist/cli/bin.js" "$@"
