#!/usr/bin/env bash
# Generates every set up to N men (default 4) from scratch into a temporary folder and prints
# the time, positions per second and table bytes. Usage: scripts/bench-gen.sh [MEN] [THREADS]
set -euo pipefail
cd "$(dirname "$0")/.."
men=${1:-4}
threads=${2:-0}
cargo build --release --quiet
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
start=$(date +%s.%N)
./target/release/canju gen --men "$men" --threads "$threads" --dir "$dir" > "$dir/report.txt" 2>/dev/null
end=$(date +%s.%N)
sets=$(grep -c generated "$dir/report.txt")
positions=$(awk '{s += $2} END {print s}' "$dir/report.txt")
bytes=$(cat "$dir"/*.ctb | wc -c)
awk -v s="$start" -v e="$end" -v n="$sets" -v p="$positions" -v b="$bytes" -v m="$men" 'BEGIN {
  t = e - s
  printf "sets up to %d men: %d, positions %d, %.1f s, %.2f M positions/s, tables %.1f MB (%.3f bits/position)\n", m, n, p, t, p / t / 1e6, b / 1e6, 8 * b / p
}'
# Where the time went, summed over the sets (each set's line ends with its phase times).
sed -n 's/.*(init \([0-9.]*\), sweep \([0-9.]*\), rule \([0-9.]*\), write \([0-9.]*\)).*/\1 \2 \3 \4/p' "$dir/report.txt" |
  awk '{i += $1; s += $2; r += $3; w += $4} END {printf "phases: init %.1f s, sweep %.1f s, perpetual-check rule %.1f s, write %.1f s\n", i, s, r, w}'
