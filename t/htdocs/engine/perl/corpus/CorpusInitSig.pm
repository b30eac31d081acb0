package CorpusInitSig;
# initsig_a.pl's and initsig_b.pl's module: its INIT block installs a
# process-wide handler and sets the environment, as Sympa's Crash.pm
# registers its $SIG{__DIE__} in one. Each CGI process runs it once its
# compile is done.
use strict;
use warnings;
INIT {
    $SIG{__DIE__} = \&crash;
    $ENV{CORPUS_INIT} = 'set by the INIT block';
}
sub crash { die "crash handler: $_[0]" }
1;
