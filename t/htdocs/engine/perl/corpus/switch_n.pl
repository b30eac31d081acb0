#!/usr/bin/perl -n
# -n: the file is the body of a while (<>) loop over the request's body.
BEGIN { print "Content-Type: text/plain\n\n" }
print "line $.: $_";
END { print "\nlines: ", $. // 0, "\n" }
