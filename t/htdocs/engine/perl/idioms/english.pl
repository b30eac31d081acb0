#!/usr/bin/perl
# `use English` (old CGI scripts, Debian's mon's monshow.cgi): its names are
# perl's own variables under other names ($PID is $$, $RS is $/), not the
# script's to reset between runs. t/58_engine_idioms.t
use strict;
use English;
print "Content-Type: text/plain\n\n";
print "pid ", ($PID == $$ && $$ > 0 ? 'ok' : 'bad'), " rs ",
      (defined $RS && $RS eq "\n" ? 'newline' : 'other'), " autoflush $OUTPUT_AUTOFLUSH\n";
