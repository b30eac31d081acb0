#!/usr/bin/perl
# A timeout with alarm and $SIG{ALRM}, finished before it fires.
local $SIG{ALRM} = sub { die "timeout\n" };
alarm 30;
my $r = eval { 'work done' };
alarm 0;
print "Content-Type: text/plain\n\n$r\n";
