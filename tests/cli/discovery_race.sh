#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The discovery-timeout race (issue 26), many times over: `bkctl smoke --timeout` shorter than
# loading the plugins, so the watchdog fires while a thread is still inside the Vulkan loader and
# the process must leave without tearing down what that thread uses. Every run must exit 5 with
# a valid JSON report (exit_code 5) and a written JUnit file, and nothing on stderr may come from
# a sanitizer. The timeouts vary so that the watchdog fires at different points of the loading.
# Run by scripts/test.sh on the ASan and TSan builds; a crash was about 3 % of runs before.
# Usage: tests/cli/discovery_race.sh BKCTL RUNS
set -euo pipefail
bkctl=${1:?usage: discovery_race.sh BKCTL RUNS}
runs=${2:?usage: discovery_race.sh BKCTL RUNS}
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
timeouts=(1ms 2ms 5ms 10ms 20ms 40ms)

failures=0
for ((i = 0; i < runs; i++)); do
  timeout=${timeouts[i % ${#timeouts[@]}]}
  rc=0
  "$bkctl" smoke --timeout "$timeout" --json --junit "$scratch/smoke.xml" >"$scratch/out.json" \
    2>"$scratch/err.txt" || rc=$?
  why=""
  if [ "$rc" != 5 ]; then
    # A fast machine may finish loading within the longer timeouts: then the checks run, and
    # any exit but a crash is the run's own verdict.
    if [ "$rc" -ge 128 ] || ! grep -q '"exit_code"' "$scratch/out.json"; then why="exit $rc"; fi
  elif ! grep -q '"exit_code": 5' "$scratch/out.json"; then
    why="exit 5 but the JSON report does not say so"
  fi
  if [ -z "$why" ] && [ ! -s "$scratch/smoke.xml" ]; then why="the JUnit file is missing or empty"; fi
  if [ -z "$why" ] && grep -q "Sanitizer" "$scratch/err.txt"; then why="a sanitizer report"; fi
  if [ -n "$why" ]; then
    failures=$((failures + 1))
    echo "discovery race: run $i (--timeout $timeout): $why" >&2
    head -c 4000 "$scratch/err.txt" >&2
  fi
  rm -f "$scratch/smoke.xml"
done
echo "discovery race: $runs runs of smoke --timeout ${timeouts[*]} under $bkctl, $failures failed" >&2
[ "$failures" = 0 ]
