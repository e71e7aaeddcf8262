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
tests=$SECONDS
SPIRE_CONFORMANCE_SERVER=real npx vitest run test/conformance test/real-spire "$@"
echo "real-spire: tests took $((SECONDS - tests)) s"
