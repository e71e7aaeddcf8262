#!/usr/bin/env bash
# deploy/monitoring/ loaded by Prometheus's own code, promtool, rather than
# only read by our tests: the alerting rules and every dashboard query must
# parse (promtool check rules), each alert must fire when it should, with its
# labels and annotations, and stay quiet when it should not (promtool test
# rules on test/monitoring/rules-test.yaml), and the dashboard's queries must
# show what their panels say (test/monitoring/dashboard-test.yaml).
#
#   npm run check:monitoring
#
# Needs promtool on the PATH (Debian's prometheus package has it); installs
# nothing itself.
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"

if ! command -v promtool >/dev/null 2>&1; then
  echo "check-monitoring: promtool is not on the PATH. It comes with Prometheus: on Debian or Ubuntu, apt-get install prometheus (gives /usr/bin/promtool); elsewhere, the promtool binary of a release from https://prometheus.io/download/" >&2
  exit 1
fi

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# The PrometheusRule's spec and the dashboard's queries as plain rule files.
"$repo/node_modules/.bin/tsx" "$repo/scripts/monitoring/write-rule-files.ts" "$work"

# Relative names (run in $work), so promtool's messages do not show the temporary directory.
# A dashboard query is the record dashboard:panel_<panel id>_<refId> in promtool's messages.
if ! (cd "$work" && promtool check rules alerts.rules.yaml dashboard.rules.yaml); then
  echo "check-monitoring: FAILED: promtool check rules" >&2
  exit 1
fi
echo "check-monitoring: passed: promtool check rules (the alerts and every dashboard query parse)"

# The test files name alerts.rules.yaml and dashboard.rules.yaml in rule_files,
# which promtool resolves from the test file's own directory: so they are run
# from copies next to them.
for t in rules-test.yaml dashboard-test.yaml; do
  cp "$repo/test/monitoring/$t" "$work/$t"
  if ! (cd "$work" && promtool test rules "$t"); then
    echo "check-monitoring: FAILED: promtool test rules test/monitoring/$t" >&2
    exit 1
  fi
  echo "check-monitoring: passed: promtool test rules test/monitoring/$t ($(grep -c '^  - name:' "$repo/test/monitoring/$t") test groups)"
done
