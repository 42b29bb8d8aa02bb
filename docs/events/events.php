<?php
// Follow an AIM task's live events (server-sent events) with plain PHP (the http stream wrapper,
// no extension needed).
//
//   AIM_API_KEY=… php events.php <task_id>     one task, until it completes or fails
//   AIM_API_KEY=… php events.php               every task of the account (GET /events), until stopped
//
// AIM_API_URL: the API's origin (default http://localhost:8080). Prints one line per event:
// "<event> <id> <task_id> <status> <percentage>". The key goes in the Authorization header. When the
// connection drops (or the server restarts) it reconnects with Last-Event-ID and gets what it missed.
$base = getenv('AIM_API_URL') ?: 'http://localhost:8080';
$key = getenv('AIM_API_KEY');
if (!$key) {
    fwrite(STDERR, "set AIM_API_KEY\n");
    exit(2);
}
$taskId = $argv[1] ?? null;
$url = $taskId ? "$base/tasks/" . rawurlencode($taskId) . '/events' : "$base/events";

$lastEventId = null;
$retryMs = 3000;
while (true) {
    $headers = "Authorization: $key\r\nAccept: text/event-stream\r\n";
    if ($lastEventId !== null) $headers .= "Last-Event-ID: $lastEventId\r\n";
    // ignore_errors: read the error body of a 4xx/5xx too; timeout: give up on a stream silent for
    // 60 s (heartbeats come every 15 s); HTTP/1.0: an answer without chunked encoding, whose
    // decoding filter in PHP would hold the events back until its buffer fills
    $context = stream_context_create(['http' => ['header' => $headers, 'ignore_errors' => true, 'timeout' => 60, 'protocol_version' => 1.0]]);
    $stream = @fopen($url, 'r', false, $context);
    $ended = false;
    if ($stream === false) {
        fwrite(STDERR, "connection failed; retrying\n");
    } else {
        preg_match('/^HTTP\/\S+ (\d{3})/', $http_response_header[0] ?? '', $m);
        $status = (int) ($m[1] ?? 0);
        if ($status === 204) break; // the task had ended and its last event was received
        if ($status >= 400) {
            fwrite(STDERR, "HTTP $status: " . stream_get_contents($stream) . "\n");
            fclose($stream);
            if ($status !== 429 && $status < 500) exit(1);
        } else {
            stream_set_read_buffer($stream, 0); // hand each event on as it arrives
            $event = 'message';
            $id = null;
            $data = [];
            // one line at a time, as it arrives; a blank line ends an event; ":" lines are heartbeats
            while (($line = fgets($stream)) !== false) {
                $line = rtrim($line, "\r\n");
                if ($line === '') {
                    if ($data) {
                        if ($id !== null) $lastEventId = $id;
                        $task = json_decode(implode("\n", $data), true);
                        echo "$event $id {$task['task_id']} {$task['status']} {$task['percentage']}\n";
                        if ($taskId && ($event === 'completed' || $event === 'failed')) $ended = true;
                    }
                    $event = 'message';
                    $id = null;
                    $data = [];
                    continue;
                }
                if ($line[0] === ':') continue;
                [$field, $value] = array_pad(explode(':', $line, 2), 2, '');
                $value = ltrim($value, ' ');
                if ($field === 'event') $event = $value;
                elseif ($field === 'data') $data[] = $value;
                elseif ($field === 'id') $id = $value;
                elseif ($field === 'retry' && ctype_digit($value)) $retryMs = (int) $value;
            }
            fclose($stream);
        }
    }
    if ($ended) break;
    fwrite(STDERR, 'reconnecting after event ' . ($lastEventId ?? '(none)') . "\n");
    usleep($retryMs * 1000);
}
