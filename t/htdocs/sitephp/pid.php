<?php
// Both sites' PHP page (t/47_security_engine_sites.t): its php-cgi's pid.
echo "pid=" . getmypid() . "\n";
