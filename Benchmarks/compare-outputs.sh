#!/usr/bin/env bash
# Compares what two builds of shop-replay print for the same journal: every view (each list's views
# too; now and as of seq 1000; JSON and text), audit, stats, verify, history, export-sl17, and the
# journal after them. Each build reads a copy of its own. Prints each output that differs, then
# "N outputs, D differences" and the folder that holds them; exits 1 when any differs.
#
#   Benchmarks/compare-outputs.sh OLD/shop-replay NEW/shop-replay JOURNAL
#
# Used to show that a change keeps every output byte for byte (docs/BENCHMARKS.md).
set -uo pipefail
if [ $# -ne 3 ]; then echo "usage: $0 OLD-shop-replay NEW-shop-replay JOURNAL" >&2; exit 2; fi
old=$1 new=$2 journal=$3
work=$(mktemp -d)
cp "$journal" "$work/old.ndjson"; cp "$journal" "$work/new.ndjson"
outputs=0 differences=0
same() {   # NAME: the two builds' outputs NAME compared
    outputs=$((outputs + 1))
    if ! cmp -s "$work/old.$1" "$work/new.$1"; then echo "differs: $1"; differences=$((differences + 1)); fi
}
both() {   # NAME ARGS...: both builds run with ARGS on their own copy
    local name=$1; shift
    "$old" "$@" --journal "$work/old.ndjson" > "$work/old.$name" 2>&1
    "$new" "$@" --journal "$work/new.ndjson" > "$work/new.$name" 2>&1
    same "$name"
}
ids() {    # VIEW KEY: the ids a view lists, by the new build
    "$new" view "$1" --json --journal "$work/new.ndjson" --no-snapshot |
        python3 -c "import json, sys; print(' '.join(x['$2'] for x in json.load(sys.stdin)['$3']))"
}
for view in lists deleted-lists locations all-items-by-name all-items-by-purchase-date audit stats members; do
    both "$view.json" view "$view" --json --no-snapshot
    both "$view.txt" view "$view" --no-snapshot
    both "$view.asof.json" view "$view" --json --no-snapshot --as-of 1000
done
for list in $(ids lists id lists); do
    for view in shopping-list-by-location shopping-list-by-name list-detail share-text; do
        both "$view.$list.json" view "$view" --list "$list" --json --no-snapshot
        both "$view.$list.txt" view "$view" --list "$list" --no-snapshot
    done
done
both audit.json audit --json
both stats.json stats --json
both stats.txt stats
both verify.json verify --json
both verify.txt verify
item=$(ids all-items-by-name id items | cut -d' ' -f1)
[ -n "$item" ] && both history.json history --item "$item" --json
"$old" export-sl17 "$work/old.sl17" --journal "$work/old.ndjson" > /dev/null 2>&1
"$new" export-sl17 "$work/new.sl17" --journal "$work/new.ndjson" > /dev/null 2>&1
same sl17
outputs=$((outputs + 1))
if ! cmp -s "$work/old.ndjson" "$work/new.ndjson"; then echo "differs: the journal after them"; differences=$((differences + 1)); fi
echo "$outputs outputs, $differences differences ($work)"
[ "$differences" -eq 0 ]
