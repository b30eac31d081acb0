#!/usr/bin/perl -w
# A file saved with Windows line ends: the #! line's -w ends in a CR.
print "Content-Type: text/plain\n\nwarnings=$^W\n";
