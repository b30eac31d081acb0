<?php
// info.php: what php-cgi sees as a pool worker (t/59_fcgi_php.t).
header('Content-Type: text/plain');
if (isset($_GET['log']))
    error_log('php-test: ' . $_GET['log']);
if (isset($_GET['fatal']))
    undefined_function();
$s = function_exists('opcache_get_status') ? opcache_get_status(false) : false;
echo "pid=", getmypid(), "\n";
echo "sapi=", php_sapi_name(), "\n";
echo "ini=", php_ini_loaded_file(), "\n";
echo "fix_pathinfo=", ini_get('cgi.fix_pathinfo'), "\n";
echo "opcache=", $s && $s['opcache_enabled'] ? 'on' : 'off', "\n";
echo "hits=", $s ? $s['opcache_statistics']['hits'] : -1, "\n";
echo "cached=", $s ? $s['opcache_statistics']['num_cached_scripts'] : -1, "\n";
foreach (['SCRIPT_FILENAME', 'SCRIPT_NAME', 'PATH_INFO', 'PATH_TRANSLATED', 'PHP_SELF',
          'REQUEST_URI', 'QUERY_STRING', 'REQUEST_METHOD'] as $k)
    echo $k, "=", $_SERVER[$k] ?? '(unset)', "\n";
echo "max_requests=", getenv('PHP_FCGI_MAX_REQUESTS'), "\n";
echo "children=", getenv('PHP_FCGI_CHILDREN'), "\n";
echo "cwd=", getcwd(), "\n";
echo "xbig=", strlen($_SERVER['HTTP_X_BIG12'] ?? ''), "\n";
echo "post=", json_encode($_POST), "\n";
