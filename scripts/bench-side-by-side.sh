#!/usr/bin/env bash
# canju and xiangqitb side by side, one after the other, on the same work: every set up to 4
# men, then one 5-men set (default KRNKR) from those sub-tables, both with 2 threads; prints
# wall seconds, peak RSS (`/usr/bin/time -v`) and bytes on disk of each. canju runs the 5-men
# set with each perpetual-check pass (bitmaps, graph).
#
# xiangqitb (github.com/noobpwnftw/xiangqitb) is built beforehand outside this repository with
# its own `build` script; point XIANGQITB at its `genegtb`. Its option.ini is written here:
# MaxPieces, Threads = 2, WDL + DTC + DTM saved (it cannot skip the DTC pass), sub-tables read
# from the 4-men run. Nothing else should run on the machine meanwhile.
#
# Usage: XIANGQITB=/path/to/genegtb scripts/bench-side-by-side.sh [SET]
set -euo pipefail
cd "$(dirname "$0")/.."
set5=${1:-KRNKR}
xq=${XIANGQITB:?set XIANGQITB to the path of the genegtb binary of xiangqitb}
cargo build --release --quiet
canju=$PWD/target/release/canju
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

xq_options() { # MAXPIECES [SUBDIR]
    printf 'MaxMem = 16384\nThreads = 2\nMaxPieces = %s\nGenerateRunList = %s\n' "$1" "$([ $# -eq 1 ] && echo 1 || echo 0)"
    printf 'GenerateTablebases = 1\nSaveWDL = 1\nSaveDTC = 1\nSaveDTM = 1\ntmpdir = ./tmp/\n'
    if [ $# -gt 1 ]; then
        printf 'wdltb = %s/wdl/\ndtctb = %s/dtc/\ndtmtb = %s/dtm/\n' "$2" "$2" "$2"
    fi
}
# canju resets the kernel's peak-RSS mark per phase (to report each phase's peak), so the
# `/usr/bin/time` figure of a canju run is only its last phase's: its own peak is the largest
# `peak_bytes` of its `gen --json` lines.
canju_peak() { # NAME
    grep -o '"peak_bytes":[0-9]*' "$work/$1.out" | cut -d: -f2 | sort -n | tail -1 |
        awk '{printf "  canju peak (gen --json) %.1f MB", $1 / 1e6}'
}
timed() { # NAME COMMAND...
    /usr/bin/time -v "${@:2}" > "$work/$1.out" 2> "$work/$1.time"
    local wall rss
    wall=$(grep 'Elapsed (wall clock)' "$work/$1.time" | awk '{print $NF}')
    rss=$(grep 'Maximum resident set size' "$work/$1.time" | awk '{print $NF}')
    printf '%-24s wall %8s  peak %8.1f MB' "$1" "$wall" "$(echo "$rss / 1000" | bc -l)"
}

mkdir -p "$work/c4" "$work/x4/tmp" "$work/x5/tmp"
timed canju-4-men "$canju" gen --men 4 --threads 2 --dir "$work/c4" --json
canju_peak canju-4-men
echo "  disk $(du -cb "$work"/c4/*.ctb | tail -1 | cut -f1) bytes"
xq_options 4 > "$work/x4/option.ini"
(cd "$work/x4" && timed xiangqitb-4-men "$xq")
echo "  disk WDL $(du -cb "$work"/x4/wdl/*.lzw | tail -1 | cut -f1) + DTM $(du -cb "$work"/x4/dtm/*.lzdtm | tail -1 | cut -f1) bytes"

for pass in bitmaps graph; do
    mkdir -p "$work/c5-$pass"
    cp "$work"/c4/*.ctb "$work/c5-$pass/"
    timed "canju-$set5-$pass" "$canju" gen "$set5" --threads 2 --rule-pass "$pass" --dir "$work/c5-$pass" --json
    canju_peak "canju-$set5-$pass"
    echo "  disk $(stat -c %s "$work/c5-$pass/$set5".*.ctb) bytes"
done
xq_options 5 "$work/x4" > "$work/x5/option.ini"
echo "$set5" > "$work/x5/autoList.txt"
(cd "$work/x5" && timed "xiangqitb-$set5" "$xq")
echo "  disk WDL $(stat -c %s "$work/x5/wdl/$set5.lzw") + DTM $(stat -c %s "$work/x5/dtm/$set5.lzdtm") bytes"
