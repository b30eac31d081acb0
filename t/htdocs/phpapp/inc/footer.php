<footer>page views this session: <?= (int)$_SESSION['views'] ?>;
self: <?= h($_SERVER['PHP_SELF']) ?>; script: <?= h($_SERVER['SCRIPT_NAME']) ?>;
method: <?= h($_SERVER['REQUEST_METHOD']) ?>; query: <?= h($_SERVER['QUERY_STRING'] ?? '') ?></footer>
</body></html>
