#!/usr/bin/perl
# A handle a CGI process's exit flushes, in a script importing hundreds of
# names: a glob given a dup of STDOUT as it runs (`*LOG = $fh`), not
# closed, and only by some runs (?b), not by the first; each run prints
# its own query.
use POSIX qw(strftime);
my ($out, $name) = (\*STDOUT, 'STDOUT');
if (($ENV{QUERY_STRING} // '') eq 'b') {
    open(my $fh, ">&", \*STDOUT) or die "dup: $!";
    *LOG = $fh;
    ($out, $name) = (\*LOG, 'LOG');
}
print $out "Content-Type: text/plain\n\nvia $name: $ENV{QUERY_STRING}\n";
