#!/usr/bin/perl
# %ENV set in a BEGIN block (a taint-style PATH, a TZ), for itself.
BEGIN { $ENV{CORPUS_BEGIN_ENV} = 'set in BEGIN'; $ENV{PATH} = '/usr/bin:/bin:/corpus-begin' }
print "Content-Type: text/plain\n\nbegin env=$ENV{CORPUS_BEGIN_ENV} path_has_corpus=", ($ENV{PATH} =~ /corpus-begin/ ? 1 : 0), "\n";
