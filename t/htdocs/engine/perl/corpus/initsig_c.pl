#!/usr/bin/perl
# A module (CorpusInitUser.pm) whose own loading uses CorpusInitSig.pm:
# that one's INIT block runs for this script too, as in a CGI process.
use strict;
use warnings;
use lib '.';
use CorpusInitUser;
print "Content-Type: text/plain\n\n";
print "handler: ", (($SIG{__DIE__} // 0) == \&CorpusInitSig::crash ? "the module's" : 'none'), "\n";
print "env: ", $ENV{CORPUS_INIT} // 'unset', "\n";
