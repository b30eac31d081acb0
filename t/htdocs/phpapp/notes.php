<?php
require __DIR__ . '/inc/lib.php';
need_login();
$notes = &$_SESSION['notes'];
$notes = $notes ?? [];
if ($_SERVER['REQUEST_METHOD'] === 'POST') {
    $text = trim($_POST['text'] ?? '');
    if ($text !== '')
        $notes[] = $text;
    go('notes.php');
}
if (isset($_GET['delete'])) {
    unset($notes[(int)$_GET['delete']]);
    $notes = array_values($notes);
    go('notes.php');
}
$title = 'Notes of ' . user();
include __DIR__ . '/inc/header.php';
echo "<ol>\n";
foreach ($notes as $i => $n)
    echo '<li>', h($n), ' <a href="', h(url("notes.php?delete=$i")), '">delete</a></li>', "\n";
echo "</ol>\n";
?>
<form method="post" action="<?= h(url('notes.php')) ?>"><textarea name="text"></textarea><button>add</button></form>
<form method="post" enctype="multipart/form-data" action="<?= h(url('upload.php')) ?>"><input type="file" name="f"><button>upload</button></form>
<?php include __DIR__ . '/inc/footer.php';
