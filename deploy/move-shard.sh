#!/bin/sh
# Move one shard to another master of the cluster, online: its home slot, which holds every key
# of the shard and of its games (services/eventstore/shards.py), by the cluster's own slot migration
# (SETSLOT IMPORTING / MIGRATING, MIGRATE the slot's keys 100 at a time, SETSLOT NODE). Clients
# meanwhile are redirected (ASK; a script whose keys are split between the two nodes gets
# TRYAGAIN and is retried). See deploy/README.md ("Adding a shard's worth of capacity").
#
#   deploy/move-shard.sh SHARD TARGET_HOST:PORT [ANY_NODE_HOST:PORT]
#
# SHARD: 0..63; TARGET: the master to move it to (joined with `valkey-cli --cluster add-node`).
# Needs valkey-cli (or redis-cli as VALKEY_CLI) on PATH. A shard already on TARGET is left.
set -eu
set -f  # the keys listed below are words, never patterns
[ $# -ge 2 ] || { echo "usage: $0 SHARD TARGET_HOST:PORT [ANY_NODE_HOST:PORT]" >&2; exit 2; }
shard=$1 target=$2 seed=${3:-$2}
cli() { node=$1; shift; "${VALKEY_CLI:-valkey-cli}" -h "${node%:*}" -p "${node##*:}" "$@"; }

tag=$(printf 's%02d' "$shard")
slot=$(cli "$seed" cluster keyslot "$tag")
nodes=$(cli "$seed" cluster nodes)
# "id address" of the master serving the slot (address: ip:port, as the cluster announces it).
owner=$(printf '%s\n' "$nodes" | awk -v s="$slot" '$3 ~ /master/ && $3 !~ /fail/ {
    for (i = 9; i <= NF; i++) {
        if ($i ~ /^\[/) continue
        n = split($i, r, "-"); lo = r[1] + 0; hi = (n > 1 ? r[2] : r[1]) + 0
        if (s >= lo && s <= hi) { split($2, a, "[@,]"); print $1, a[1] }
    }
}')
[ -n "$owner" ] || { echo "no master serves slot $slot" >&2; exit 1; }
source_id=${owner% *} source=${owner#* }
target_id=$(cli "$target" cluster myid)
if [ "$source_id" = "$target_id" ]; then
    echo "shard $shard (slot $slot) is on $target already"; exit 0
fi
target_at=$(printf '%s\n' "$nodes" | awk -v id="$target_id" '$1 == id { split($2, a, "[@,]"); print a[1] }')
[ -n "$target_at" ] || { echo "$target is not a node of this cluster" >&2; exit 1; }

# A node just added learns the slots' owners in a few seconds: until then it answers CLUSTERDOWN.
tries=0
until cli "$target" cluster info | grep -q cluster_state:ok; do
    tries=$((tries + 1))
    [ "$tries" -le 60 ] || { echo "$target does not see the cluster ok" >&2; exit 1; }
    sleep 0.5
done
cli "$target" cluster setslot "$slot" importing "$source_id" >/dev/null
cli "$source" cluster setslot "$slot" migrating "$target_id" >/dev/null
moved=0
while keys=$(cli "$source" cluster getkeysinslot "$slot" 100) && [ -n "$keys" ]; do
    # shellcheck disable=SC2086  # one argument per key
    said=$(cli "$source" migrate "${target_at%:*}" "${target_at##*:}" "" 0 10000 keys $keys)
    case $said in OK | NOKEY) ;; *) echo "MIGRATE: $said" >&2; exit 1 ;; esac
    moved=$((moved + $(printf '%s\n' "$keys" | wc -l)))
done
# The new owner first, then the old one (it stops answering ASK), then every other master (or
# they would learn it by gossip, later).
cli "$target" cluster setslot "$slot" node "$target_id" >/dev/null
cli "$source" cluster setslot "$slot" node "$target_id" >/dev/null
for master in $(printf '%s\n' "$nodes" | awk '$3 ~ /master/ && $3 !~ /fail/ { split($2, a, "[@,]"); print a[1] }'); do
    case $master in "$source" | "$target_at") ;; *) cli "$master" cluster setslot "$slot" node "$target_id" >/dev/null ;; esac
done
echo "shard $shard (slot $slot): $moved keys moved from $source to $target_at"
