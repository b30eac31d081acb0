<?php
require __DIR__ . '/inc/lib.php';
$title = 'Home';
include __DIR__ . '/inc/header.php';
?>
<p><?= user() ? 'Welcome back, ' . h(user()) . '.' : 'Hello, stranger.' ?></p>
<p>You have <?= count($_SESSION['notes'] ?? []) ?> notes.</p>
<form method="get" action="<?= h(url('index.php')) ?>"><input name="q" value="<?= h($_GET['q'] ?? '') ?>"><button>search</button></form>
<?php if (isset($_GET['q'])): ?>
<ul><?php foreach ($_SESSION['notes'] ?? [] as $i => $n) if (stripos($n, $_GET['q']) !== false) echo '<li>', h($n), "</li>\n"; ?></ul>
<?php endif;
include __DIR__ . '/inc/footer.php';
