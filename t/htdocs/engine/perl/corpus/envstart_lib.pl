#!/usr/bin/perl
# SetEnv PERL5LIB: a library directory perl takes at its start.
my $ok = eval { require CorpusPerl5lib; 1 };
print "Content-Type: text/plain\n\n", $ok ? CorpusPerl5lib::hello() : 'no CorpusPerl5lib', "\n";
