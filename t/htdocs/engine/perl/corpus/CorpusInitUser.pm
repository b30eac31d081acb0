package CorpusInitUser;
# initsig_c.pl's module, which loads CorpusInitSig.pm: that one's INIT
# block runs for the script that loads this one, as in a CGI process.
use strict;
use warnings;
use CorpusInitSig;
sub name { 'CorpusInitUser' }
1;
