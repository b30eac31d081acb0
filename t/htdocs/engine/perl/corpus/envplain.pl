#!/usr/bin/perl
print "Content-Type: text/plain\n\nbegin env=", ($ENV{CORPUS_BEGIN_ENV} // 'unset'), " path_has_corpus=", ($ENV{PATH} =~ /corpus-begin/ ? 1 : 0), "\n";
