#!/usr/bin/perl
# read(STDIN, ...) of CONTENT_LENGTH, then whatever a second read gets.
my $n = read(STDIN, my $buf, $ENV{CONTENT_LENGTH} || 0);
my $more = read(STDIN, my $rest, 100);
print "Content-Type: text/plain\n\nread=", ($n // 'undef'), " [$buf] more=", ($more // 'undef'), "\n";
