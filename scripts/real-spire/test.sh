#!/usr/bin/env bash
# The real-SPIRE lane: installs the pinned spire-server (install.sh; kept in a
# cache outside the clone), then runs the conformance suite and the controller
# scenarios of test/real-spire/ against real servers it starts itself.
set -euo pipefail
cd "$(dirname "$0")/../.."
started=$SECONDS
SPIRE_SERVER_BIN="$(bash scripts/real-spire/install.sh | tail -n 1)"
export SPIRE_SERVER_BIN
echo "real-spire: $("$SPIRE_SERVER_BIN" --version 2>&1 | head -n 1) at $SPIRE_SERVER_BIN (install step $((SECONDS - started)) s)"
# The server older than 1.8.0 backs one file (old-server.test.ts), which runs only
# if it is there: a proxy that stops serving that old release must not stop the lane.
if SPIRE_OLD_SERVER_BIN="$(bash scripts/real-spire/install.sh --old | tail -n 1)"; then
  export SPIRE_OLD_SERVER_BIN
  echo "real-spire: $("$SPIRE_OLD_SERVER_BIN" --version 2>&1 | head -n 1) (older than 1.8.0) at $SPIRE_OLD_SERVER_BIN"
else
  echo "real-spire: WARNING: the SPIRE server older than 1.8.0 could not be built; test/real-spire/old-server.test.ts is skipped" >&2
  unset SPIRE_OLD_SERVER_BIN
fi
# The agent backs one file (workload-api.test.ts: the Workload API and SPIFFE mTLS),
# which runs only if the agent could be built.
if SPIRE_AGENT_BIN="$(bash scripts/real-spire/install.sh --agent | tail -n 1)"; then
  export SPIRE_AGENT_BIN
  echo "real-spire: $("$SPIRE_AGENT_BIN" --version 2>&1 | head -n 1) (agent) at $SPIRE_AGENT_BIN"
else
  echo "real-spire: WARNING: spire-agent could not be built; test/real-spire/workload-api.test.ts is skipped" >&2
  unset SPIRE_AGENT_BIN
fi
tests=$SECONDS
SPIRE_CONFORMANCE_SERVER=real npx vitest run test/conformance test/real-spire "$@"
echo "real-spire: tests took $((SECONDS - tests)) s"
