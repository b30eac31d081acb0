<?php
require __DIR__ . '/inc/lib.php';
$pages = ['/about' => 'About this application', '/contact' => 'Write to us'];
$path = $_SERVER['PATH_INFO'] ?? '/';
if (!isset($pages[$path])) {
    http_response_code(404);
    $title = 'Not found';
    include __DIR__ . '/inc/header.php';
    echo '<p>No page ', h($path), "</p>\n";
} else {
    $title = $pages[$path];
    include __DIR__ . '/inc/header.php';
    echo '<p>', h($title), ', at ', h($path), "</p>\n";
}
include __DIR__ . '/inc/footer.php';
