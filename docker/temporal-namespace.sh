#!/bin/sh
# Waits until the Temporal frontend answers, then registers canopy's namespace unless it exists.
# `npm run cluster` runs it after every start of the server; docker-compose.yml runs it once.
#
#   TEMPORAL_CLI         the Temporal CLI binary
#   TEMPORAL_ADDRESS     the frontend, host:port
#   TEMPORAL_NAMESPACE   default: default
set -eu
: "${TEMPORAL_CLI:?}" "${TEMPORAL_ADDRESS:?}" "${TEMPORAL_NAMESPACE:=default}"

attempts=0
until "$TEMPORAL_CLI" operator cluster health --address "$TEMPORAL_ADDRESS" >/dev/null 2>&1; do
  attempts=$((attempts + 1))
  if [ "$attempts" -ge 240 ]; then
    echo "Temporal did not answer on $TEMPORAL_ADDRESS within two minutes." >&2
    exit 1
  fi
  sleep 0.5
done
if ! "$TEMPORAL_CLI" operator namespace describe --address "$TEMPORAL_ADDRESS" --namespace "$TEMPORAL_NAMESPACE" >/dev/null 2>&1; then
  "$TEMPORAL_CLI" operator namespace create --address "$TEMPORAL_ADDRESS" --namespace "$TEMPORAL_NAMESPACE"
fi
