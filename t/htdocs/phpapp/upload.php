<?php
require __DIR__ . '/inc/lib.php';
need_login();
header('Content-Type: text/plain; charset=utf-8');
$f = $_FILES['f'] ?? null;
if (!$f || $f['error'] !== UPLOAD_ERR_OK) {
    http_response_code(400);
    echo "no file (error ", $f['error'] ?? 'none', ")\n";
    exit;
}
printf("name=%s\nsize=%d\nmd5=%s\ntype=%s\n", $f['name'], $f['size'], md5_file($f['tmp_name']), $f['type']);
