<?php
// index.php: a PHP file in a CGIplusEngine php scope with no AddHandler
// (t/59_fcgi_php.t): the engine runs it, its source never goes out.
echo "auto sapi=", php_sapi_name(), "\n";
