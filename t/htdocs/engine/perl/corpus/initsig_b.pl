#!/usr/bin/perl
# A module's INIT block (CorpusInitSig.pm): it ran for this script as in
# a CGI process, also when another script of the engine loaded the module
# first (initsig_a.pl and initsig_b.pl use the same one).
use strict;
use warnings;
use lib '.';
use CorpusInitSig;
print "Content-Type: text/plain\n\n";
print "handler: ", (($SIG{__DIE__} // 0) == \&CorpusInitSig::crash ? "the module's" : 'none'), "\n";
print "env: ", $ENV{CORPUS_INIT} // 'unset', "\n";
