#!/usr/bin/perl
# select() of another handle, and back.
open my $null, '>', '/dev/null' or die;
my $old = select $null;
print "hidden\n";
select $old;
print "Content-Type: text/plain\n\nvisible\n";
