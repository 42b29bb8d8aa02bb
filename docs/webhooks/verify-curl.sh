#!/usr/bin/env bash
# Check an AIM webhook's signature with openssl, or send your receiver a signed request with curl
# (signed exactly as AIM signs a delivery), from a shell.
#
#   WEBHOOK_SECRET=whsec_… ./verify-curl.sh verify <webhook-id> <webhook-timestamp> '<webhook-signature>' < body.json
#     exit 0 and "verified" when one v1 signature matches and the timestamp is within 5 minutes
#   WEBHOOK_SECRET=whsec_… ./verify-curl.sh send https://your.app/hooks < body.json
#     POSTs the body with webhook-id, webhook-timestamp and webhook-signature; prints the HTTP status
#
# WEBHOOK_SECRET: as the API Keys screen shows it (whsec_…), or a task's own webhook_secret (a
# whsec_… value as is, any other string is the key as its UTF-8 bytes). Needs bash, openssl, curl.
set -euo pipefail

: "${WEBHOOK_SECRET:?set WEBHOOK_SECRET}"
body=$(mktemp)
trap 'rm -f "$body"' EXIT
cat >"$body" # the raw body, byte for byte

# The HMAC key in hex: whsec_ + base64 -> the decoded bytes, else the secret's own bytes.
key_hex() {
  local decoded=''
  if [[ "$WEBHOOK_SECRET" == whsec_* ]]; then
    decoded=$(printf '%s' "${WEBHOOK_SECRET#whsec_}" | base64 -d 2>/dev/null | od -An -vtx1 | tr -d ' \n') || decoded=''
  fi
  if [[ -n "$decoded" ]]; then printf '%s' "$decoded"; else printf '%s' "$WEBHOOK_SECRET" | od -An -vtx1 | tr -d ' \n'; fi
}

# base64 HMAC-SHA256 of "<id>.<timestamp>.<body>"
sign() {
  { printf '%s.%s.' "$1" "$2"; cat "$body"; } | openssl dgst -sha256 -mac HMAC -macopt "hexkey:$(key_hex)" -binary | base64 | tr -d '\n'
}

case "${1:-}" in
verify)
  id=$2 timestamp=$3 signatures=$4
  [[ "$timestamp" =~ ^[0-9]+$ ]] || { echo 'invalid webhook-timestamp' >&2; exit 1; }
  now=$(date +%s)
  if ((now - timestamp > 300 || timestamp - now > 300)); then echo 'timestamp outside the tolerance' >&2; exit 1; fi
  expected="v1,$(sign "$id" "$timestamp")"
  for entry in $signatures; do # several while a rotated secret still signs
    if [[ "$entry" == "$expected" ]]; then echo verified; exit 0; fi
  done
  echo 'no matching signature' >&2
  exit 1
  ;;
send)
  id="msg_$(date +%s)_$RANDOM" timestamp=$(date +%s)
  curl -sS -o /dev/null -w '%{http_code}\n' -X POST "$2" \
    -H 'content-type: application/json' -H 'x-webhook-event: webhook.test' \
    -H "webhook-id: $id" -H "webhook-timestamp: $timestamp" -H "webhook-signature: v1,$(sign "$id" "$timestamp")" \
    --data-binary @"$body"
  ;;
*)
  echo "usage: $0 verify <webhook-id> <webhook-timestamp> '<webhook-signature>' < body | $0 send <url> < body" >&2
  exit 2
  ;;
esac
