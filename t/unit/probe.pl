#!/usr/bin/perl
# probe.pl: the Perl twin of probe.c for t/unit/script_harness.py.
use strict;
use warnings;
use FindBin ();
use lib "$FindBin::RealBin/../../lib/perl";
use CGIplus;

my $count = 0;
my $rc;
while ($rc = CGIplus::accept()) {
    my $act = $ENV{PROBE} // '(unset)';
    $count++;
    print "Content-Type: text/plain\n\ncount=$count persistent=",
          CGIplus::is_persistent(), "\n";
    if ($act eq 'struct') {
        print 'struct=', (CGIplus::struct_mode() ? 0 : -1), "\n";
    } elsif ($act eq 'callout') {
        my $a = CGIplus::callout($ENV{PROBE_ARG} // '(unset)');
        print 'answer=', $a // '(null)', ' errno=', (defined $a ? 0 : $! + 0), "\n";
    } elsif ($act eq 'subenv') {
        STDOUT->flush;
        system('/bin/sh', '-c', 'printf "sub=%s\\n" "${V-(unset)}"');
    } elsif ($act eq 'partial') {
        my $n = $ENV{PROBE_ARG} // 0;
        my $s = '';
        for (1 .. $n) { my $c = getc STDIN; last unless defined $c; $s .= $c }
        print "body=$s\n";
    } elsif ($act eq 'readall') {
        my $s = do { local $/; <STDIN> } // '';
        print "body=$s\n";
    }
    print 'V=', $ENV{V} // '(unset)', "\n";
    CGIplus::finish() unless $act eq 'nofinish';
}
exit(defined $rc ? 0 : 1);
