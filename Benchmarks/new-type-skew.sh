#!/usr/bin/env bash
# Version skew for a new event type (docs/JOURNAL.md, "Lines written by a newer version"): a journal holding a
# StoreLocationsReordered line (a type the build before it
# does not know), met by that older build.
#
#   Benchmarks/new-type-skew.sh OLD/shop-replay NEW/shop-replay
#
# OLD is a build from before StoreLocationsReordered; NEW this one.
# Checks, each printing "ok: …" or "FAILED: …" (exit 1 if any failed):
#   1. OLD refuses to write to NEW's journal (unknown_event_type, naming the
#      line and the type), and the journal is byte for byte what it was;
#   2. OLD's views stop before that line and say so (asOf is the seq before it);
#   3. OLD's verify fails naming that line;
#   4. OLD's replica of a hub that NEW writes such a line to still pulls every
#      line, the chain checked, byte-identical to the hub's journal, and NEW
#      reads the replica whole, the store's order in it.
set -uo pipefail
if [ $# -ne 2 ]; then echo "usage: $0 OLD-shop-replay NEW-shop-replay" >&2; exit 2; fi
old=$1 new=$2
work=$(mktemp -d)
failed=0
ok() { echo "ok: $1"; }
bad() { echo "FAILED: $1"; failed=1; }

household() {   # $1: journal
    printf '%s\n' \
        '{"type":"CreateHousehold","data":{"name":"Home","currency":"EUR","timeZone":"Europe/Berlin"}}' \
        '{"type":"CreateLocation","data":{"name":"Dairy"}}' \
        '{"type":"CreateLocation","data":{"name":"Bakery"}}' \
        '{"type":"CreateItem","data":{"name":"Milk","location":"Dairy"}}' \
        '{"type":"CreateList","data":{"name":"Weekly"}}' \
        '{"type":"AddItemToList","data":{"list":"Weekly","item":"Milk"}}' \
        '{"type":"CreateStore","data":{"name":"Corner shop"}}' \
        | "$new" apply --actor ana --journal "$1" > /dev/null
}

# A journal of the new build with a store's order, then a line after it.
household "$work/new.ndjson" || bad "NEW apply"
printf '%s\n' '{"type":"ReorderStoreLocations","data":{"store":"Corner shop","order":["Bakery","Dairy"]}}' \
    '{"type":"CreateList","data":{"name":"After"}}' | "$new" apply --actor ana --journal "$work/new.ndjson" > /dev/null || bad "NEW reorder"
first=$(grep -n '"type":"StoreLocationsReordered"' "$work/new.ndjson" | head -1 | cut -d: -f1)
[ -n "$first" ] && ok "NEW's journal has a StoreLocationsReordered line at line $first of $(wc -l < "$work/new.ndjson" | tr -d ' ')" \
    || bad "no StoreLocationsReordered line in NEW's journal"

# 1. OLD refuses to write.
cp "$work/new.ndjson" "$work/before.ndjson"
echo '{"type":"CreateList","data":{"name":"From an old phone"}}' | "$old" apply --actor ana --journal "$work/new.ndjson" > "$work/apply.out" 2>&1
status=$?
if [ $status -ne 0 ] && grep -q "unknown_event_type" "$work/apply.out" && grep -q "line $first" "$work/apply.out" \
    && grep -q "StoreLocationsReordered" "$work/apply.out"; then
    ok "OLD apply refused (exit $status): $(grep -m1 unknown_event_type "$work/apply.out" | cut -c1-200)"
else
    bad "OLD apply was not refused as unknown_event_type at line $first: $(head -3 "$work/apply.out")"
fi
cmp -s "$work/new.ndjson" "$work/before.ndjson" && ok "the journal is unchanged" || bad "OLD changed the journal"

# 2. OLD's views stop before that line.
"$old" view shopping-list-by-location --json --no-snapshot --journal "$work/new.ndjson" > "$work/list.json" 2> "$work/list.err"
asof=$(python3 -c "import json; print(json.load(open('$work/list.json'))['asOf'])" 2>/dev/null)
if [ "$asof" = "$((first - 1))" ] && grep -q "newer ShopEvents" "$work/list.err"; then
    ok "OLD's views are as of seq $asof and say why: $(head -1 "$work/list.err" | cut -c1-200)"
else
    bad "OLD's views: asOf $asof (expected $((first - 1))), warning: $(head -1 "$work/list.err")"
fi

# 3. OLD's verify fails naming the line.
"$old" verify --journal "$work/new.ndjson" > "$work/verify.out" 2>&1
status=$?
if [ $status -ne 0 ] && grep -q "line $first" "$work/verify.out"; then
    ok "OLD verify failed (exit $status) naming line $first: $(grep -m1 "line $first" "$work/verify.out" | cut -c1-320)"
else
    bad "OLD verify: exit $status, $(head -3 "$work/verify.out")"
fi

# 4. A hub NEW writes to; a replica OLD keeps.
household "$work/hub.ndjson"
"$old" clone --hub "$new hub --journal $work/hub.ndjson" --journal "$work/replica.ndjson" --device old-phone --actor ana > "$work/clone.out" 2>&1 \
    && ok "OLD cloned NEW's hub" || bad "OLD clone: $(tail -2 "$work/clone.out")"
echo '{"type":"ReorderStoreLocations","data":{"store":"Corner shop","order":["Bakery"]}}' | "$new" apply --actor ana --journal "$work/hub.ndjson" > /dev/null 2>&1
"$old" sync --actor ana --journal "$work/replica.ndjson" > "$work/sync.out" 2>&1
if cmp -s "$work/replica.ndjson" "$work/hub.ndjson"; then
    ok "OLD's sync pulled every line, the replica byte-identical to the hub ($(wc -l < "$work/hub.ndjson" | tr -d ' ') lines)"
else
    bad "OLD's replica differs from the hub: $(tail -2 "$work/sync.out")"
fi
"$new" view stores --json --no-snapshot --journal "$work/replica.ndjson" > "$work/replica-stores.json" 2> "$work/replica-stores.err"
python3 - "$work/replica-stores.json" "$(wc -l < "$work/hub.ndjson" | tr -d ' ')" <<'EOF' && ok "NEW reads the replica whole, the store's own order in it" || bad "NEW on the replica: $(head -2 "$work/replica-stores.err")"
import json, sys
view = json.load(open(sys.argv[1]))
assert view["asOf"] == int(sys.argv[2]), view["asOf"]
assert len(view["stores"]) == 1 and len(view["stores"][0]["ownOrder"]) == 1, view
EOF
echo "(files in $work)"
exit $failed
