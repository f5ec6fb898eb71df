# Sourced by .ci/run: Debian's PgBouncer in transaction mode in front of the local PostgreSQL
# (every database, trust), for test/run.mjs's pass through it (DESIGN.md 3.12). Its own config in
# a temporary folder, on the first free port from 6432, run as the postgres user (it refuses root);
# stopped when .ci/run ends. Exports TEST_POSTGRES_POOLER_URL.
if [ ! -x /usr/sbin/pgbouncer ]; then
  apt-get install -y pgbouncer || { apt-get update && apt-get install -y pgbouncer; }
fi
PGBOUNCER_DIR=$(mktemp -d /tmp/svc-ci-pgbouncer.XXXXXX)
pgbouncer_port=6432
while (exec 3<>"/dev/tcp/127.0.0.1/$pgbouncer_port") 2>/dev/null; do
  pgbouncer_port=$((pgbouncer_port + 1))
done
cat > "$PGBOUNCER_DIR/pgbouncer.ini" <<INI
[databases]
* = host=127.0.0.1 port=5432
[pgbouncer]
listen_addr = 127.0.0.1
listen_port = $pgbouncer_port
unix_socket_dir =
auth_type = trust
auth_file = $PGBOUNCER_DIR/userlist.txt
pool_mode = transaction
max_client_conn = 2000
default_pool_size = 20
max_db_connections = 40
; test databases come and go: close their server connections and pools soon
server_idle_timeout = 10
autodb_idle_timeout = 30
; a database that is gone answers in seconds, not PgBouncer's default two minutes
query_wait_timeout = 5
logfile = $PGBOUNCER_DIR/pgbouncer.log
pidfile = $PGBOUNCER_DIR/pgbouncer.pid
INI
echo '"postgres" ""' > "$PGBOUNCER_DIR/userlist.txt"
if [ "$(id -u)" = 0 ]; then
  chown -R postgres "$PGBOUNCER_DIR"
  runuser -u postgres -- /usr/sbin/pgbouncer -d "$PGBOUNCER_DIR/pgbouncer.ini"
else
  /usr/sbin/pgbouncer -d "$PGBOUNCER_DIR/pgbouncer.ini"
fi
stop_pgbouncer() { [ -f "$PGBOUNCER_DIR/pgbouncer.pid" ] && kill "$(cat "$PGBOUNCER_DIR/pgbouncer.pid")" 2>/dev/null || true; }
trap stop_pgbouncer EXIT
export TEST_POSTGRES_POOLER_URL="postgres://postgres@127.0.0.1:$pgbouncer_port/test"
for _ in $(seq 50); do
  psql "$TEST_POSTGRES_POOLER_URL" -Atc 'select 1' >/dev/null 2>&1 && break
  sleep 0.2
done
psql "$TEST_POSTGRES_POOLER_URL" -Atc 'select 1' >/dev/null
echo "# PgBouncer $(/usr/sbin/pgbouncer --version | head -1 | cut -d' ' -f2) in transaction mode on 127.0.0.1:$pgbouncer_port"
# The browser, CLI, ops and admin-page suites start the same servers over the same statements as
# the API suites, in more time: the pass through PgBouncer runs the others.
export TEST_POSTGRES_POOLER_EXCLUDE="${TEST_POSTGRES_POOLER_EXCLUDE-test/browser/,test/cli/,test/ops/,test/web/}"
