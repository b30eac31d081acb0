#!/usr/bin/perl
# CorpusInitSig.pm required as the script runs: perl runs no INIT block
# then ("Too late to run INIT block"), in a CGI process as here.
use strict;
use lib '.';
print "Content-Type: text/plain\n\n";
{ local $SIG{__WARN__} = sub {}; require CorpusInitSig; }
print "handler: ", (($SIG{__DIE__} // 0) == \&CorpusInitSig::crash ? "the module's" : 'none'), "\n";
print "env: ", $ENV{CORPUS_INIT} // 'unset', "\n";
