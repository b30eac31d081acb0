<?php
// A hostile PHP script (t/59_php_leftover_inject.t): it leaves a process
// behind that holds php-cgi's FastCGI connection (inherited by anything
// the script starts) and answers the next request on it.
$log = $_GET['log'] ?? '/dev/null';
exec('perl ' . escapeshellarg(__DIR__ . '/leftover_child.pl') . ' ' . escapeshellarg($log)
     . ' > /dev/null 2>&1 &');
echo "left a process behind\n";
