#!/bin/sh
# Two builds of shop-hub on the 100-household, one-process cell of `HubBench postgres`,
# A then B, round after round, so that the machine's drift falls on both alike: compare
# the rounds' ratios, not single runs. Run from the project's root, inside a cluster:
#
#   swift build -c release --package-path Server
#   pg_virtualenv sh -c 'Server/Benchmarks/hub-ab.sh 8 1 A/shop-hub B/shop-hub'
#
# ROUNDS, SIZES (commands a push: 1, 10 or 1,10), then the two binaries.
set -eu
rounds=$1; sizes=$2; a=$3; b=$4
for round in $(seq 1 "$rounds"); do
    for hub in "$a" "$b"; do
        rates=$(Server/.build/release/HubBench postgres --database "postgres://$PGUSER:$PGPASSWORD@$PGHOST:$PGPORT/postgres" \
            --shop-hub "$hub" --seconds 5 --runs 1 --processes 1 --households 100 --sizes "$sizes" --no-peers 2>&1 \
            | sed -n 's/.*household(s), \(.* a push: [0-9]*\) commands\/s/\1/p' | tr '\n' ' ')
        echo "round $round $hub: $rates"
    done
done
