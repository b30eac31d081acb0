<?php
// Runs on after its client left (t/59_fcgi_abort_next.t): with
// ignore_user_abort, ?ms (6000) without reading its body, then appends
// "finished pid=P" to logs/abort-mark (the test made it, writable by all).
ignore_user_abort(true);
header('Content-Type: text/plain');
usleep((int)($_GET['ms'] ?? 6000) * 1000);
file_put_contents(__DIR__ . '/../../logs/abort-mark', 'finished pid=' . getmypid() . "\n",
                  FILE_APPEND);
echo "done\n";
