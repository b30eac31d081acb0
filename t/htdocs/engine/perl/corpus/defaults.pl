#!/usr/bin/perl
# Perl's globals as a new process has them (setglobals.pl ran before).
my @a = (1, 2); my %h; $h{1, 2} = 1;
print "Content-Type: text/plain\n\n";
print "list: @a\nsubsep: ", unpack('H*', (keys %h)[0]), "\nW: $^W\n";
print "\$_: ", defined $_ ? "[$_]" : 'undef', "\n\$\@: [$@]\n";
print "\$0 is the script: ", ($0 eq $ENV{SCRIPT_FILENAME} ? 1 : 0), "\n";
print "INC: @INC\n";
