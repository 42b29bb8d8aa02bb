#!/usr/bin/env python3
"""Receive and verify AIM webhooks in Python with the standard library only.

Run: WEBHOOK_SECRET=whsec_... PORT=8000 python3 verify.py

This follows the algorithm of the official Standard Webhooks library (PyPI `standardwebhooks`:
`Webhook(secret).verify(body, headers)`), which you may use instead; note that its test was not
run here (PyPI is unreachable from our build machines), this sample's was.

WEBHOOK_SECRET is the signing secret exactly as the API Keys screen shows it (whsec_...). For a
task sent with its own webhook_secret, use that: a whsec_... value as is, any other string is the
key as its UTF-8 bytes.
"""
import base64
import binascii
import hashlib
import hmac
import json
import os
import sys
import time
from http.server import BaseHTTPRequestHandler, HTTPServer

TOLERANCE_SECONDS = 5 * 60


def signing_key(secret: str) -> bytes:
    """whsec_ + base64 -> the decoded bytes; any other string -> its UTF-8 bytes."""
    if secret.startswith("whsec_"):
        try:
            key = base64.b64decode(secret[len("whsec_"):], validate=True)
            if key:
                return key
        except (binascii.Error, ValueError):
            pass
    return secret.encode("utf-8")


def verify(secret: str, headers, body: bytes, now: float = None) -> dict:
    """Returns the parsed body, or raises ValueError. `body` is the raw request body."""
    msg_id = headers.get("webhook-id")
    timestamp = headers.get("webhook-timestamp")
    signatures = headers.get("webhook-signature")
    if not (msg_id and timestamp and signatures):
        raise ValueError("missing webhook-id, webhook-timestamp or webhook-signature")
    if not timestamp.isdigit():
        raise ValueError("invalid webhook-timestamp")
    if abs((now if now is not None else time.time()) - int(timestamp)) > TOLERANCE_SECONDS:
        raise ValueError("timestamp outside the tolerance")
    signed = f"{msg_id}.{timestamp}.".encode("utf-8") + body
    expected = base64.b64encode(hmac.new(signing_key(secret), signed, hashlib.sha256).digest()).decode()
    # Several space-separated "v1,<base64>" entries while a rotated secret still signs.
    for entry in signatures.split(" "):
        version, _, signature = entry.partition(",")
        if version == "v1" and hmac.compare_digest(signature, expected):
            return json.loads(body)
    raise ValueError("no matching signature")


class Receiver(BaseHTTPRequestHandler):
    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("content-length", "0")))
        try:
            task = verify(os.environ.get("WEBHOOK_SECRET", ""), self.headers, body)
        except ValueError as error:
            print(json.dumps({"verified": False, "reason": str(error)}), flush=True)
            self.send_response(400)
            self.end_headers()
            return
        # webhook-id is the same on every retry and resend: use it to drop duplicates.
        print(json.dumps({"verified": True, "id": self.headers["webhook-id"], "event": self.headers.get("x-webhook-event"),
                          "task_id": task.get("task_id")}), flush=True)
        self.send_response(204)  # any 2xx counts as delivered
        self.end_headers()

    def log_message(self, *args):
        pass


if __name__ == "__main__":
    server = HTTPServer(("127.0.0.1", int(os.environ.get("PORT", "8000"))), Receiver)
    print(f"listening on http://127.0.0.1:{server.server_address[1]}", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        sys.exit(0)
