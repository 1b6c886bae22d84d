#!/usr/bin/env bash
# Version skew end to end (docs/JOURNAL.md, "Lines written by a newer version"): a journal that a newer build wrote
# with version-2 lines, met by an older build, and the other way round.
#
#   Benchmarks/version-skew.sh OLD/shop-replay NEW/shop-replay
#
# OLD is a build from before version 2 (every type at version 1); NEW this one.
# Checks, each printing "ok: …" or "FAILED: …" (exit 1 if any failed):
#   1. OLD refuses to write to NEW's journal (unsupported_version, naming the
#      line), and the journal is byte for byte what it was;
#   2. OLD's views stop before the first version-2 line and say so (asOf is the seq before it);
#   3. OLD's verify fails naming that line;
#   4. OLD's replica of a hub that NEW writes to still pulls every line, the
#      chain checked, byte-identical to the hub's journal, and NEW reads the replica whole;
#   5. NEW reads OLD's own journal (its demo) with every view's JSON unchanged
#      (Benchmarks/compare-outputs.sh, if it is beside this script).
set -uo pipefail
if [ $# -ne 2 ]; then echo "usage: $0 OLD-shop-replay NEW-shop-replay" >&2; exit 2; fi
old=$1 new=$2
work=$(mktemp -d)
failed=0
ok() { echo "ok: $1"; }
bad() { echo "FAILED: $1"; failed=1; }

# A journal of the new build: its demo (units, stores, decimal quantities: version-2 lines).
"$new" demo --journal "$work/new.ndjson" > /dev/null 2>&1 || bad "NEW demo"
first=$(grep -n '"v":2,' "$work/new.ndjson" | head -1 | cut -d: -f1)
[ -n "$first" ] && ok "NEW's demo has version-2 lines, the first at line $first" || bad "no version-2 line in NEW's demo"

# 1. OLD refuses to write.
cp "$work/new.ndjson" "$work/before.ndjson"
echo '{"type":"CreateList","data":{"name":"From an old phone"}}' | "$old" apply --actor ana --journal "$work/new.ndjson" > "$work/apply.out" 2>&1
status=$?
if [ $status -ne 0 ] && grep -q "unsupported_version" "$work/apply.out" && grep -q "line $first" "$work/apply.out"; then
    ok "OLD apply refused (exit $status): $(grep -m1 unsupported_version "$work/apply.out" | cut -c1-160)"
else
    bad "OLD apply was not refused as unsupported_version at line $first: $(head -3 "$work/apply.out")"
fi
cmp -s "$work/new.ndjson" "$work/before.ndjson" && ok "the journal is unchanged" || bad "OLD changed the journal"

# 2. OLD's views stop before the first version-2 line.
"$old" view lists --json --no-snapshot --journal "$work/new.ndjson" > "$work/lists.json" 2> "$work/lists.err"
asof=$(python3 -c "import json,sys; print(json.load(open('$work/lists.json'))['asOf'])" 2>/dev/null)
if [ "$asof" = "$((first - 1))" ] && grep -q "newer ShopEvents" "$work/lists.err"; then
    ok "OLD's views are as of seq $asof and say why: $(head -1 "$work/lists.err" | cut -c1-160)"
else
    bad "OLD's views: asOf $asof (expected $((first - 1))), warning: $(head -1 "$work/lists.err")"
fi

# 3. OLD's verify fails naming the line.
"$old" verify --journal "$work/new.ndjson" > "$work/verify.out" 2>&1
status=$?
if [ $status -ne 0 ] && grep -q "line $first" "$work/verify.out"; then
    ok "OLD verify failed (exit $status) naming line $first"
else
    bad "OLD verify: exit $status, $(head -3 "$work/verify.out")"
fi

# 4. A hub NEW writes to; a replica OLD keeps.
"$new" demo --journal "$work/hub.ndjson" --months 1 > /dev/null 2>&1
"$old" clone --hub "$new hub --journal $work/hub.ndjson" --journal "$work/replica.ndjson" --device old-phone --actor ana > "$work/clone.out" 2>&1 \
    && ok "OLD cloned NEW's hub" || bad "OLD clone: $(tail -2 "$work/clone.out")"
echo '{"type":"CreateStore","data":{"name":"Night market"}}' | "$new" apply --actor ana --journal "$work/hub.ndjson" > /dev/null 2>&1
"$old" sync --actor ana --journal "$work/replica.ndjson" > "$work/sync.out" 2>&1
if cmp -s "$work/replica.ndjson" "$work/hub.ndjson"; then
    ok "OLD's sync pulled every line, the replica byte-identical to the hub ($(wc -l < "$work/hub.ndjson") lines)"
else
    bad "OLD's replica differs from the hub: $(tail -2 "$work/sync.out")"
fi
"$new" view lists --json --no-snapshot --journal "$work/replica.ndjson" > "$work/replica-lists.json" 2> "$work/replica-lists.err"
[ "$(python3 -c "import json; print(json.load(open('$work/replica-lists.json'))['asOf'])")" = "$(wc -l < "$work/hub.ndjson" | tr -d ' ')" ] \
    && ok "NEW reads the replica whole" || bad "NEW on the replica: $(head -2 "$work/replica-lists.err")"

# 5. NEW reads OLD's journal with every view's JSON unchanged.
here=$(dirname "$0")
if [ -x "$here/compare-outputs.sh" ]; then
    "$old" demo --journal "$work/old.ndjson" > /dev/null 2>&1
    "$here/compare-outputs.sh" "$old" "$new" "$work/old.ndjson" > "$work/compare.out" 2>&1 \
        && ok "OLD's demo: $(tail -1 "$work/compare.out")" || bad "OLD's demo read differently: $(tail -3 "$work/compare.out")"
fi
echo "(files in $work)"
exit $failed
