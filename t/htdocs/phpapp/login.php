<?php
require __DIR__ . '/inc/lib.php';
$error = null;
if ($_SERVER['REQUEST_METHOD'] === 'POST') {
    if (($_POST['name'] ?? '') === 'ann' && ($_POST['password'] ?? '') === 'secret') {
        session_regenerate_id(true);
        $_SESSION['user'] = 'ann';
        go($_POST['next'] ?: 'index.php');
    }
    http_response_code(403);
    $error = 'Wrong name or password for ' . ($_POST['name'] ?? '');
}
$title = 'Log in';
include __DIR__ . '/inc/header.php';
if ($error) echo '<p class="error">', h($error), "</p>\n";
?>
<form method="post" action="<?= h(url('login.php')) ?>">
<input type="hidden" name="next" value="<?= h($_GET['next'] ?? $_POST['next'] ?? '') ?>">
<label>name <input name="name" value="<?= h($_POST['name'] ?? '') ?>"></label>
<label>password <input type="password" name="password"></label>
<button>log in</button></form>
<?php include __DIR__ . '/inc/footer.php';
