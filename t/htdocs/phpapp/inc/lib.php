<?php
// A small multi-page PHP application (t/59_fcgi_php_app.t): sessions,
// forms, includes, redirects, an upload, PATH_INFO routes, a 404. Served
// by php-cgi workers and by php-fpm + mod_proxy_fcgi, its pages must be
// byte for byte the same.
session_start();
$base = dirname($_SERVER['SCRIPT_NAME']);

function h($s) { return htmlspecialchars((string)$s, ENT_QUOTES, 'UTF-8'); }
function url($page) { global $base; return rtrim($base, '/') . '/' . $page; }
function go($page) { header('Location: ' . url($page), true, 303); exit; }
function user() { return $_SESSION['user'] ?? null; }
function need_login() {
    if (!user())
        go('login.php?next=' . rawurlencode(basename($_SERVER['SCRIPT_NAME'])));
}
$_SESSION['views'] = ($_SESSION['views'] ?? 0) + 1;
