#!/bin/sh
# Creates the databases of canopy's production shape on PostgreSQL: Temporal's two, brought to the
# schema version the server needs (temporal-sql-tool carries the schemas of its own release), and
# canopy's store, left empty for canopy to migrate. Running it again creates only what is missing
# and applies only newer schema versions. `npm run cluster` and docker-compose.yml both run it.
#
#   TEMPORAL_SQL_TOOL                                             the temporal-sql-tool binary
#   POSTGRES_HOST, POSTGRES_PORT, POSTGRES_USER, POSTGRES_PASSWORD
#   TEMPORAL_DB, TEMPORAL_VISIBILITY_DB, CANOPY_DB                 the database names
set -eu
: "${TEMPORAL_SQL_TOOL:?}" "${POSTGRES_HOST:?}" "${POSTGRES_PORT:?}" "${POSTGRES_USER:?}" "${POSTGRES_PASSWORD=}"
: "${TEMPORAL_DB:?}" "${TEMPORAL_VISIBILITY_DB:?}" "${CANOPY_DB:?}"

sql_tool() {
  database=$1
  shift
  "$TEMPORAL_SQL_TOOL" --plugin postgres12 --endpoint "$POSTGRES_HOST" --port "$POSTGRES_PORT" \
    --user "$POSTGRES_USER" --password "$POSTGRES_PASSWORD" --database "$database" "$@"
}

# $1: the database, $2: its embedded schema (postgresql/v12/temporal or postgresql/v12/visibility).
temporal_database() {
  sql_tool "$1" create-database
  sql_tool "$1" setup-schema --version 0.0
  sql_tool "$1" update-schema --schema-name "$2"
}

temporal_database "$TEMPORAL_DB" postgresql/v12/temporal
temporal_database "$TEMPORAL_VISIBILITY_DB" postgresql/v12/visibility
sql_tool "$CANOPY_DB" create-database
