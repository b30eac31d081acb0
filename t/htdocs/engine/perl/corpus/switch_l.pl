#!/usr/bin/perl -l
# -l on the #! line: every print ends with "\n" ($\), the header's blank
# line too.
print "Content-Type: text/plain\n";
print "one";
print "two";
