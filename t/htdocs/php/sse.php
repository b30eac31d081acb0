<?php
// Server-sent events (t/53_sse_reset.t): ?n events (5), one every ?ms
// (200), each flushed as written. ?mark=FILE: its shutdown function
// appends "aborted=A event=I" there (connection_aborted(), the event it
// was at: PHP learns a client left at its next write).
$n = (int)($_GET['n'] ?? 5) ?: 5;
$ms = (int)($_GET['ms'] ?? 200) ?: 200;
$i = 0;
if (isset($_GET['mark'])) {
    $mark = $_GET['mark'];
    register_shutdown_function(function () use ($mark, &$i) {
        file_put_contents($mark, 'aborted=' . connection_aborted() . " event=$i\n", FILE_APPEND);
    });
}
header('Content-Type: text/event-stream');
header('Cache-Control: no-cache');
while (ob_get_level())
    ob_end_flush();
for ($i = 1; $i <= $n; $i++) {
    echo "data: event $i\n\n";
    flush();
    if ($i < $n)
        usleep($ms * 1000);
}
