#!/usr/bin/env bash
# Watch an AIM task's live events (server-sent events) from a shell with curl: the raw stream.
#
#   AIM_API_KEY=… ./events-curl.sh <task_id>     one task; curl exits when it completes or fails
#   AIM_API_KEY=… ./events-curl.sh               every task of the account (GET /events), until Ctrl-C
#   LAST_EVENT_ID=1042 AIM_API_KEY=… ./events-curl.sh <task_id>   resume after event 1042
#
# AIM_API_URL: the API's origin (default http://localhost:8080). -N turns curl's output buffering
# off, so each event shows as it arrives. Lines starting with ":" are heartbeats. curl does not
# reconnect by itself: run it again with LAST_EVENT_ID set to the last "id:" it printed.
set -euo pipefail

: "${AIM_API_KEY:?set AIM_API_KEY}"
base="${AIM_API_URL:-http://localhost:8080}"
if [[ $# -gt 0 ]]; then url="$base/tasks/$1/events"; else url="$base/events"; fi
resume=()
if [[ -n "${LAST_EVENT_ID:-}" ]]; then resume=(-H "Last-Event-ID: $LAST_EVENT_ID"); fi

exec curl -sS -N --fail-with-body -H "Authorization: $AIM_API_KEY" -H 'Accept: text/event-stream' "${resume[@]}" "$url"
