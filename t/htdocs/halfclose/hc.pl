#!/usr/bin/perl
# Half-closed clients (t/3d_cgi_halfclose.t): answers with the method, the
# query string and the body it read, plain CGI or persistent. Query words:
# sleep=N waits first; ledger=PATH appends "start ID" (and "done ID" after
# answering); stream=N writes N lines, 0.2 s apart; id=ID names the request.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/../../../lib/perl";
use CGIplus;

$| = 1;
while (CGIplus::accept()) {
    my %q = map { /^([^=]*)=(.*)$/ ? ($1, $2) : () } split /&/, $ENV{QUERY_STRING} // '';
    my $note = sub {
        return unless $q{ledger};
        open my $l, '>>', $q{ledger} or die "$q{ledger}: $!";
        print $l "$_[0] ", $q{id} // '-', "\n";
        close $l;
    };
    $note->('start');
    my $body = '';
    binmode STDIN;
    read(STDIN, $body, $ENV{CONTENT_LENGTH} || 0);
    sleep $q{sleep} if $q{sleep};
    print "Content-Type: text/plain\n\n";
    print "method=$ENV{REQUEST_METHOD} query=$ENV{QUERY_STRING} len=", length($body),
        " body=$body\n";
    for my $i (1 .. ($q{stream} || 0)) {
        print "line $i\n";
        select undef, undef, undef, 0.2;
    }
    $note->('done');
    CGIplus::finish();
}
