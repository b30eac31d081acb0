<?php
// procw_lib.pl in PHP (CGIplusEngine php: php-cgi as a FastCGI worker).
header('Content-Type: text/plain');
$q = $_SERVER['QUERY_STRING'] ?? '';
$pid = preg_match('/\bpid=(\d+)/', $q, $m) ? (int)$m[1] : getmypid();
echo "pid=" . getmypid() . "\n";
foreach (['oom_score_adj' => '1000', 'autogroup' => '19'] as $name => $val) {
    $h = @fopen("/proc/$pid/$name", 'w');
    if ($h === false) {
        $e = error_get_last()['message'] ?? '';
        echo "$name=refused (" . preg_replace('/^.*: /', '', $e) . ")\n";
        continue;
    }
    echo "$name=" . (@fwrite($h, $val) ? 'wrote' : 'opened') . "\n";
    fclose($h);
}
