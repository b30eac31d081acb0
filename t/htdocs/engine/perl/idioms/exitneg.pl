#!/usr/bin/perl -wT
# cvsweb's idiom: `... or exit -1`. Perl warns "ambiguous" for it only
# when exit is overridden (the engine's); mod_cgid logs nothing. And -wT
# means warnings, as the file compiles and as it runs.
use strict;
"exitneg-compile-marker"; # a warning as it compiles
my $exitneg_u;
my $s = "runtime" . $exitneg_u;
print "Content-Type: text/plain\r\n\r\n";
print "before\n";
open(my $fh, '<', '/nonexistent/exitneg') or exit -1 if ($ENV{QUERY_STRING} // '') eq 'fail';
print "after\n";
