#!/usr/bin/perl
# $^W set in a BEGIN block (the -w of a script whose #! line cannot carry
# it): its run warns as perl -w does; an END block sets it again. Neither
# is the next script's (warnw_get.pl).
BEGIN { $^W = 1 }
my @w;
$SIG{__WARN__} = sub { push @w, $_[0] =~ /\A(Use of uninitialized value[^.]*?) at / ? $1 : $_[0] };
my $u;
my $s = "a" . $u;
print "Content-Type: text/plain\n\n";
print "\$^W $^W\n";
print "warned: $_\n" for @w;
END { $^W = 1 }
