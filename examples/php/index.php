<?php
// Plain PHP: CGIplusEngine php runs it on Debian's php-cgi as persistent
// FastCGI workers (OPcache keeps it compiled; the pid stays the same).
$name = preg_replace('/[^\w -]/', '', $_GET['name'] ?? 'world');
header('Content-Type: text/plain; charset=utf-8');
echo "Hello, $name, from PHP (", PHP_SAPI, ")\n";
echo "pid=", getmypid(), "\n";
