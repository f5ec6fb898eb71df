# Sourced by .ci/run: a streaming replica of the local PostgreSQL (cluster "main", port 5432) as
# cluster "replica" on port 5433, made with Debian's pg_createcluster and pg_basebackup, for the
# read-replica suites (DESIGN.md 3.12). Idempotent: CI and later sessions run on this machine
# against the same services, so a replica that is there and replaying is kept (its replay
# resumed, in case a test paused it), and the primary is restarted only if its wal_level or
# max_wal_senders cannot stream. Exports TEST_POSTGRES_REPLICA_URL.
pg_version=$(ls /etc/postgresql | sort -V | tail -1)
replica_port=5433
primary() { psql -w -h 127.0.0.1 -p 5432 -U postgres -d postgres -Atc "$1"; }
replica() { psql -w -h 127.0.0.1 -p "$replica_port" -U postgres -d postgres -Atc "$1"; }
if [ "$(primary 'show wal_level')" = minimal ] || [ "$(primary 'show max_wal_senders')" = 0 ]; then
  printf 'wal_level = replica\nmax_wal_senders = 10\n' \
    > "/etc/postgresql/$pg_version/main/conf.d/91-svc-replication.conf"
  pg_ctlcluster --skip-systemctl-redirect "$pg_version" main restart
fi
hba="/etc/postgresql/$pg_version/main/pg_hba.conf"
if ! grep -Eq '^host[[:space:]]+replication[[:space:]]+all[[:space:]]+127\.0\.0\.1/32' "$hba"; then
  echo 'host replication all 127.0.0.1/32 trust' >> "$hba"
  primary 'select pg_reload_conf()' >/dev/null
fi
if [ "$(replica 'select pg_is_in_recovery()' 2>/dev/null)" != t ]; then
  if pg_lsclusters -h | awk '{print $1, $2}' | grep -qx "$pg_version replica"; then
    pg_dropcluster --stop "$pg_version" replica
  fi
  pg_createcluster "$pg_version" replica -p "$replica_port" >/dev/null
  replica_data="/var/lib/postgresql/$pg_version/replica"
  find "$replica_data" -mindepth 1 -delete
  runuser -u postgres -- pg_basebackup -h 127.0.0.1 -p 5432 -U postgres -D "$replica_data" -R -X stream -c fast
  # The primary's authentication (trust on 127.0.0.1, as on this machine's PostgreSQL).
  cp "$hba" "/etc/postgresql/$pg_version/replica/pg_hba.conf"
  printf "listen_addresses = '127.0.0.1'\nhot_standby = on\n" \
    > "/etc/postgresql/$pg_version/replica/conf.d/90-svc-replica.conf"
  pg_ctlcluster --skip-systemctl-redirect "$pg_version" replica start
  for _ in $(seq 50); do
    [ "$(replica 'select pg_is_in_recovery()' 2>/dev/null)" = t ] && break
    sleep 0.2
  done
fi
replica 'select pg_wal_replay_resume()' >/dev/null
echo "# PostgreSQL streaming replica on 127.0.0.1:$replica_port (in recovery: $(replica 'select pg_is_in_recovery()'))"
export TEST_POSTGRES_REPLICA_URL="postgres://postgres@127.0.0.1:$replica_port/test"
