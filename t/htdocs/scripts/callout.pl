#!/usr/bin/perl
# Callout round trip and struct mode from Perl (see t/src/callout.c).
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/../../../lib/perl";
use CGIplus;

while (CGIplus::accept()) {
    my $q = $ENV{QUERY_STRING} // '';
    print "Content-Type: text/plain\n\n";
    if ($q eq 'noop') {
        print 'answer=', CGIplus::callout('NOOP: hello'), "\n";
    } elsif ($q eq 'log') {
        print 'answer=', CGIplus::callout('LOG: callout-log-line-from-perl'), "\n";
    } elsif ($q eq 'map') {
        print 'answer=', CGIplus::callout('MAP-PATH: /c/hello'), "\n";
    } elsif ($q =~ /^map=(.*)$/) {
        print 'answer=', CGIplus::callout("MAP-PATH: $1"), "\n";
    } elsif ($q eq 'struct') {
        CGIplus::struct_mode();
        print "struct=0\n";
    } elsif ($q eq 'record') {
        print 'answer=', CGIplus::callout('CGIPLUS: record'), "\n";
    } else {
        (my $p = $ENV{PATH_INFO} // '') =~ s/\n/\\n/g;
        print "path=$p pid=$$\n";
    }
    CGIplus::finish();
}
