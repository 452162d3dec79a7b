#!/bin/sh
# Creates Temporal's two databases when missing and brings their schemas to this release's version
# (temporal-sql-tool: setup-schema -v 0.0 records the base version once; update-schema applies the
# versioned steps not yet applied). Safe to run at every start. Runs in the temporalio/admin-tools
# image (compose: the temporal-admin-tools service; Kubernetes: the temporal-schema Job).
set -eu
: "${POSTGRES_SEEDS:?set POSTGRES_SEEDS (the Postgres host)}"
: "${POSTGRES_USER:?set POSTGRES_USER}"
: "${POSTGRES_PWD:?set POSTGRES_PWD}"
DB_PORT="${DB_PORT:-5432}"
SCHEMA_ROOT="${TEMPORAL_SCHEMA_DIR:-/etc/temporal/schema}/postgresql/v12"

sql_tool() {
  temporal-sql-tool --plugin postgres12 --ep "$POSTGRES_SEEDS" -p "$DB_PORT" -u "$POSTGRES_USER" --pw "$POSTGRES_PWD" "$@"
}

until PGPASSWORD="$POSTGRES_PWD" psql -h "$POSTGRES_SEEDS" -p "$DB_PORT" -U "$POSTGRES_USER" -d postgres -c 'SELECT 1' >/dev/null 2>&1; do
  echo "waiting for Postgres at $POSTGRES_SEEDS:$DB_PORT"
  sleep 1
done

for pair in "${DBNAME:-temporal}:temporal" "${VISIBILITY_DBNAME:-temporal_visibility}:visibility"; do
  db="${pair%%:*}"
  kind="${pair##*:}"
  exists="$(PGPASSWORD="$POSTGRES_PWD" psql -h "$POSTGRES_SEEDS" -p "$DB_PORT" -U "$POSTGRES_USER" -d postgres -tAc "SELECT 1 FROM pg_database WHERE datname = '$db'")"
  if [ "$exists" != "1" ]; then
    echo "creating database $db"
    sql_tool --db "$db" create-database
  fi
  sql_tool --db "$db" setup-schema -v 0.0
  sql_tool --db "$db" update-schema -d "$SCHEMA_ROOT/$kind/versioned"
  echo "database $db: $kind schema up to date"
done
