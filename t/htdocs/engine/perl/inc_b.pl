#!/usr/bin/perl
# See inc_a.pl: no `use lib` here, so the directory must not be in @INC.
print "Content-Type: text/plain\n\n";
print "pid=$$ has=", (grep { $_ eq '/nonexistent/cgiplus-engine-inc-test' } @INC) ? 1 : 0, "\n";
