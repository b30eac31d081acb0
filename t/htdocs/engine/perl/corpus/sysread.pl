#!/usr/bin/perl
# sysread(STDIN) of CONTENT_LENGTH bytes, then what a second one gets.
my $n = sysread(STDIN, my $buf, $ENV{CONTENT_LENGTH} || 0);
my $more = sysread(STDIN, my $rest, 100);
print "Content-Type: text/plain\n\nsysread=", ($n // 'undef'), " [$buf] more=", ($more // 'undef'), "\n";
