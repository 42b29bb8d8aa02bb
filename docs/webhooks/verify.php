<?php
// Receive and verify AIM webhooks in PHP (no extension beyond the standard ones).
// Run: WEBHOOK_SECRET=whsec_… php -S 127.0.0.1:8000 verify.php
//
// WEBHOOK_SECRET is the signing secret exactly as the API Keys screen shows it (whsec_…). For a
// task sent with its own webhook_secret, use that: a whsec_… value as is, any other string is the
// key as its UTF-8 bytes. The official library (composer require standard-webhooks/standard-webhooks)
// does the same checks.

const TOLERANCE_SECONDS = 300;

/** whsec_ + base64 -> the decoded bytes; any other string -> its bytes. */
function signing_key(string $secret): string
{
    if (str_starts_with($secret, 'whsec_')) {
        $key = base64_decode(substr($secret, 6), true);
        if ($key !== false && $key !== '') {
            return $key;
        }
    }
    return $secret;
}

/** Returns the decoded body or throws. $body is the raw request body. */
function verify_webhook(string $secret, array $headers, string $body, ?int $now = null): array
{
    $headers = array_change_key_case($headers, CASE_LOWER);
    $id = $headers['webhook-id'] ?? '';
    $timestamp = $headers['webhook-timestamp'] ?? '';
    $signatures = $headers['webhook-signature'] ?? '';
    if ($id === '' || $timestamp === '' || $signatures === '') {
        throw new RuntimeException('missing webhook-id, webhook-timestamp or webhook-signature');
    }
    if (!ctype_digit($timestamp)) {
        throw new RuntimeException('invalid webhook-timestamp');
    }
    if (abs(($now ?? time()) - (int) $timestamp) > TOLERANCE_SECONDS) {
        throw new RuntimeException('timestamp outside the tolerance');
    }
    $expected = base64_encode(hash_hmac('sha256', "$id.$timestamp.$body", signing_key($secret), true));
    // Several space-separated "v1,<base64>" entries while a rotated secret still signs.
    foreach (explode(' ', $signatures) as $entry) {
        [$version, $signature] = array_pad(explode(',', $entry, 2), 2, '');
        if ($version === 'v1' && hash_equals($expected, $signature)) {
            return json_decode($body, true);
        }
    }
    throw new RuntimeException('no matching signature');
}

$body = file_get_contents('php://input');
try {
    $task = verify_webhook((string) getenv('WEBHOOK_SECRET'), getallheaders(), $body);
    // webhook-id is the same on every retry and resend: use it to drop duplicates.
    error_log(json_encode(['verified' => true, 'id' => $_SERVER['HTTP_WEBHOOK_ID'], 'task_id' => $task['task_id'] ?? null]));
    http_response_code(204); // any 2xx counts as delivered
} catch (RuntimeException $e) {
    error_log(json_encode(['verified' => false, 'reason' => $e->getMessage()]));
    http_response_code(400);
    echo 'invalid signature';
}
