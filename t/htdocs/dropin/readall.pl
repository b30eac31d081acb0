#!/usr/bin/perl
# A plain CGI program that reads its body to end of file (t/3g): a <STDIN>
# loop, as much old CGI code does. Each run appends what it saw (method,
# query, body) to t/logs/ledger3g/runs when the test made that directory,
# so the test can count the runs that got a request, and those that got
# nothing.
use strict;
use warnings;
use FindBin;
my $body = '';
while (my $line = <STDIN>) {
    $body .= $line;
}
my $seen = sprintf "method=%s query=%s body=%s", $ENV{REQUEST_METHOD} // '',
                   $ENV{QUERY_STRING} // '', $body;
if (open my $fh, '>>', "$FindBin::RealBin/../../logs/ledger3g/runs") {
    print $fh "$seen\n";
    close $fh;
}
print "Content-Type: text/plain\n\n$seen\n";
