#!/usr/bin/env bash
# The machine under the benchmarks (issue 7): CPU model and clock, caches, then what
# bench/machine/probe.c measures (dependent-load latency by working set, a cache line's
# round trip between two cores, arithmetic alone and on both cores). Wall-time figures in
# docs/performance.md are read against these: machines of the same kind have differed
# by 2x in the element loop. Needs gcc (apt-get install gcc when missing).
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
command -v gcc >/dev/null 2>&1 || { apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q gcc; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
gcc -O2 -pthread -o "$work/probe" "$repo/bench/machine/probe.c"
lscpu | grep -E '^(Model name|CPU\(s\)|Thread\(s\) per core|L1d|L2|L3|Hypervisor vendor)' || true
grep -m1 MHz /proc/cpuinfo || true
"$work/probe"
