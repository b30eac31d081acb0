#!/usr/bin/perl
# No -w, no `use warnings`: $^W is 0 as the script compiles and runs, in
# a CGI process whatever another script set (warnw_set.pl). Its compile's
# warnings (none without -w) and its run's are printed.
BEGIN { $SIG{__WARN__} = sub { $main::corpus_w .= "compile: $_[0]" } }
BEGIN { $main::corpus_w = '' }
"a useless constant";
my @w;
$SIG{__WARN__} = sub { push @w, $_[0] };
my $u;
my $s = "a" . $u;
print "Content-Type: text/plain\n\n";
print "\$^W $^W\n";
print $main::corpus_w;
print "warned: $_" for @w;
