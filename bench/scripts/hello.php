<?php
// hello.php: the same hello for php-fpm behind mod_proxy_fcgi. Answers a
// body of QUERY_STRING bytes of 'x' (0 to 1 MiB).
header('Content-Type: text/plain');
$n = max(0, min((int)($_SERVER['QUERY_STRING'] ?? 0), 1 << 20));
if ($n > 0) {
    echo str_repeat('x', $n);
}
