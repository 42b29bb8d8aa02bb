#!/usr/bin/env python3
"""Follow an AIM task's live events (server-sent events) with the Python standard library only.

  AIM_API_KEY=... python3 events.py <task_id>    one task, until it completes or fails
  AIM_API_KEY=... python3 events.py              every task of the account (GET /events), until stopped

AIM_API_URL: the API's origin (default http://localhost:8080). Prints one line per event:
"<event> <id> <task_id> <status> <percentage>". The key goes in the Authorization header. When the
connection drops (or the server restarts) it reconnects with Last-Event-ID and gets what it missed.
"""
import json
import os
import sys
import time
import urllib.error
import urllib.parse
import urllib.request

base = os.environ.get("AIM_API_URL", "http://localhost:8080")
key = os.environ.get("AIM_API_KEY")
if not key:
    sys.exit("set AIM_API_KEY")
task_id = sys.argv[1] if len(sys.argv) > 1 else None
url = f"{base}/tasks/{urllib.parse.quote(task_id)}/events" if task_id else f"{base}/events"


def read_events(response):
    """Yields (event, id, data, retry) per event; comment lines (heartbeats) are skipped."""
    event, data, event_id, retry = "message", [], None, None
    for raw in response:  # one line at a time, as it arrives
        line = raw.decode("utf-8").rstrip("\r\n")
        if line == "":
            if data or retry:
                yield event, event_id, "\n".join(data), retry
            event, data, event_id, retry = "message", [], None, None
            continue
        if line.startswith(":"):
            continue
        field, _, value = line.partition(":")
        value = value[1:] if value.startswith(" ") else value
        if field == "event":
            event = value
        elif field == "data":
            data.append(value)
        elif field == "id":
            event_id = value
        elif field == "retry" and value.isdigit():
            retry = int(value)


last_event_id = None
retry_ms = 3000
while True:
    headers = {"Authorization": key, "Accept": "text/event-stream"}
    if last_event_id:
        headers["Last-Event-ID"] = last_event_id
    ended = False
    try:
        with urllib.request.urlopen(urllib.request.Request(url, headers=headers), timeout=60) as response:
            if response.status == 204:  # the task had ended and its last event was received
                break
            for event, event_id, data, retry in read_events(response):
                if retry:
                    retry_ms = retry
                if not data:
                    continue
                if event_id:
                    last_event_id = event_id
                task = json.loads(data)
                print(f"{event} {event_id} {task['task_id']} {task['status']} {task['percentage']}", flush=True)
                if task_id and event in ("completed", "failed"):
                    ended = True
    except urllib.error.HTTPError as error:
        print(f"HTTP {error.code}: {error.read().decode()}", file=sys.stderr)
        if error.code != 429 and error.code < 500:
            sys.exit(1)
    except (OSError, ValueError) as error:  # connection refused, reset, timed out (60 s without even a heartbeat)
        print(f"stream dropped ({error})", file=sys.stderr)
    if ended:
        break
    print(f"reconnecting after event {last_event_id or '(none)'}", file=sys.stderr, flush=True)
    time.sleep(retry_ms / 1000)
