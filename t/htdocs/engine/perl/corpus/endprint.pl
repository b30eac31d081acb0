#!/usr/bin/perl
# END prints a footer; a die in the middle after the header.
print "Content-Type: text/plain\n\nbody\n";
die "corpus-endprint-die\n" if $ENV{QUERY_STRING} eq 'die';
END { print "footer from END\n" }
