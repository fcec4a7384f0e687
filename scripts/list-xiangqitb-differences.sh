#!/usr/bin/env bash
# Makes tests/data/xiangqitb-differences.tsv.zst from the lists scripts/compare-xiangqitb.sh
# left in OUT (MATERIAL.diff: FEN, ours, xiangqitb): each position with our rule and the clause
# of the README's *The repetition rules* that explains it (by the rule that decided ours:
# `mixed` -> one-check-one-chase, `perpetual-chase` -> narrower-chase, a KRKNN draw ->
# mutual-chase, which tests/xiangqitb.rs checks by its cycle, else unexplained, which
# tests/xiangqitb.rs refuses). Positions xiangqitb's prober gives no value for (`?`) are left
# out and counted.
#
#   OUT=/path/to/compare-output DIR=/path/to/canju-tables scripts/list-xiangqitb-differences.sh
set -euo pipefail
: "${OUT:?set OUT}" "${DIR:?set DIR}"
RULES=${RULES:-asian}
cd "$(dirname "$0")/.."
cargo build --release --quiet --example rule_of
list=$(mktemp)
printf '# set\tfen\tours\trule\txiangqitb\tclause\n' >"$list"
for diff in "$OUT"/*.diff; do
    m=$(basename "$diff" .diff)
    awk -F'\t' '$3 != "?"' "$diff" >"$list.known"
    echo "$m: $(wc -l <"$list.known") differences, $(($(wc -l <"$diff") - $(wc -l <"$list.known"))) without a xiangqitb value"
    cut -f1 "$list.known" | target/release/examples/rule_of "$DIR" "$RULES" |
        paste - <(cut -f3 "$list.known") |
        awk -F'\t' -v m="$m" '{
            clause = $3 == "mixed" ? "one-check-one-chase" : $3 == "perpetual-chase" ? "narrower-chase" : m == "KRKNN" ? "mutual-chase" : "unexplained"
            print m "\t" $1 "\t" $2 "\t" $3 "\t" $4 "\t" clause
        }' >>"$list"
done
zstd -q -19 -f "$list" -o tests/data/xiangqitb-differences.tsv.zst
rm -f "$list" "$list.known"
echo "tests/data/xiangqitb-differences.tsv.zst: $(($(zstd -dc tests/data/xiangqitb-differences.tsv.zst | wc -l) - 1)) positions"
