<!DOCTYPE html>
<html><head><meta charset="utf-8"><title><?= h($title ?? 'Notes') ?></title></head>
<body>
<nav><a href="<?= h(url('index.php')) ?>">home</a>
<a href="<?= h(url('notes.php')) ?>">notes</a>
<a href="<?= h(url('page.php/about')) ?>">about</a>
<?php if (user()): ?><a href="<?= h(url('logout.php')) ?>">log out <?= h(user()) ?></a>
<?php else: ?><a href="<?= h(url('login.php')) ?>">log in</a><?php endif ?>
</nav>
<h1><?= h($title ?? 'Notes') ?></h1>
