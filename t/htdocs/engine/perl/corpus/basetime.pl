#!/usr/bin/perl
# -M: a file's age in days, counted from the script's start ($^T). The
# test writes basetime.stamp just before the request: under CGI the
# process starts after it, so its age is never negative.
my $age = -M 'basetime.stamp';
print "Content-Type: text/plain\n\n",
      !defined $age ? "no stamp\n" : $age < 0 ? "stamp newer than the start\n" : "stamp older than the start\n";
