#!/bin/sh
# Waits until the Temporal frontend answers, registers canopy's namespace unless it exists, and
# waits until the frontend serves it. `npm run cluster` runs it at every start of the server;
# docker-compose.yml runs it once, before the workers start.
#
#   TEMPORAL_CLI         the Temporal CLI binary
#   TEMPORAL_ADDRESS     the frontend, host:port
#   TEMPORAL_NAMESPACE   default: default
set -eu
: "${TEMPORAL_CLI:?}" "${TEMPORAL_ADDRESS:?}" "${TEMPORAL_NAMESPACE:=default}"

temporal() {
  "$TEMPORAL_CLI" "$@" --address "$TEMPORAL_ADDRESS"
}

# $1: what is awaited, for the message; the rest: the command that succeeds once it is there.
wait_for() {
  what=$1
  shift
  attempts=0
  until "$@" >/dev/null 2>&1; do
    attempts=$((attempts + 1))
    if [ "$attempts" -ge 240 ]; then
      echo "Timed out after two minutes waiting for $what on $TEMPORAL_ADDRESS." >&2
      exit 1
    fi
    sleep 0.5
  done
}

wait_for "the Temporal frontend" temporal operator cluster health
# Created first and looked up only when that fails (it exists already, or something is wrong):
# a frontend asked for a namespace before it existed answers "not found" for a second more.
temporal operator namespace create --namespace "$TEMPORAL_NAMESPACE" >/dev/null 2>&1 ||
  temporal operator namespace describe --namespace "$TEMPORAL_NAMESPACE" >/dev/null
wait_for "namespace $TEMPORAL_NAMESPACE" temporal workflow list --namespace "$TEMPORAL_NAMESPACE" --limit 1
