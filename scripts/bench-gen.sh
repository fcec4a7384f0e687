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
