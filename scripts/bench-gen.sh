#!/usr/bin/env bash
# Generates every set up to N men (default 4) from scratch into a temporary folder and prints
# the time, positions per second, table bytes, the phases summed over the sets and the largest
# set's peak memory, from `canju gen --json` (one object per set).
# Usage: scripts/bench-gen.sh [MEN] [THREADS]
set -euo pipefail
cd "$(dirname "$0")/.."
men=${1:-4}
threads=${2:-0}
cargo build --release --quiet
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
start=$(date +%s.%N)
./target/release/canju gen --men "$men" --threads "$threads" --json --dir "$dir" > "$dir/report.jsonl"
end=$(date +%s.%N)
python3 - "$dir/report.jsonl" "$start" "$end" "$men" <<'PY'
import json, sys
path, start, end, men = sys.argv[1], float(sys.argv[2]), float(sys.argv[3]), sys.argv[4]
sets = [json.loads(line) for line in open(path)]
done = [s for s in sets if s["generated"]]
positions = sum(s["stats"]["red_to_move"]["positions"] + s["stats"]["black_to_move"]["positions"] for s in sets)
size = sum(s["file_bytes"] for s in sets)
t = end - start
print(f"sets up to {men} men: {len(done)}, positions {positions}, {t:.1f} s, "
      f"{positions / t / 1e6:.2f} M positions/s, tables {size / 1e6:.1f} MB "
      f"({8 * size / positions:.3f} bits/position)")
phase = lambda k: sum(s["phases"][k] for s in done)
print(f"phases: init {phase('init'):.1f} s, sweep {phase('sweep'):.1f} s, "
      f"perpetual-check rule {phase('rule'):.1f} s, write {phase('write'):.1f} s")
# Peaks of small sets are mostly the process itself; the largest set's says most.
top = max(done, key=lambda s: s["slots"], default=None)
if top:
    print(f"largest set: {top['material']}, peak {top['peak_bytes'] / 2**20:.0f} MiB "
          f"({top['peak_bytes_per_slot']:.1f} bytes per slot-position), "
          f"rule pass {top['rule_pass']}")
PY
