#!/usr/bin/perl
# The idiom of a forked child: `exec ...; exit 1;`. Perl's "Statement
# unlikely to be reached" does not count an exit after an exec: mod_cgid
# logs nothing as it compiles, nor does the engine, whose exit is
# overridden (t/58_engine_idioms.t).
use strict;
use warnings;
print "Content-Type: text/plain\n\n";
if (($ENV{QUERY_STRING} // '') eq 'child') {
    exec '/bin/true';
    exit 1;    # should never get there
}
print "parent\n";
