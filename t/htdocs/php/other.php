<?php
// other.php: a second script of the same pool (t/59_fcgi_php.t).
echo "other pid=", getmypid(), "\n";
