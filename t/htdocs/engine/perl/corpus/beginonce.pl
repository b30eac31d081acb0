#!/usr/bin/perl
# BEGIN sets a package global; the body reads it.
BEGIN { $corpus_begun = "set in BEGIN" }
print "Content-Type: text/plain\n\nbegun=$corpus_begun\n";
