<?php
// Another script of the same pool (t/59_php_leftover_inject.t): slow
// enough that a process waiting on the connection answers first.
sleep(2);
echo "the victim's own page\n";
