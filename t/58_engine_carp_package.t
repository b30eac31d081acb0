# CGI::Carp's warning handler (its stamped warnings, warningsToBrowser) for
# a script that imports CGI::Carp into a package of its own (`package
# My::App; use CGI::Carp ...`, as the W3C Markup Validator's `check`),
# compiled on an engine where another script loaded CGI::Carp first:
# its warnings go through CGI::Carp, as under mod_cgid (they were plain
# perl warnings: nothing in the body, no stamp in the log).
use strict;
use warnings FATAL => 'all';
use Apache::Test;
use Apache::TestUtil;
use lib 't/htdocs/apps';
use AppTest qw(curl url);

plan tests => 4;

my $logf = Apache::Test::config()->{vars}{t_logs} . '/error_log';
sub log_from { open my $fh, '<', $logf or return ''; seek $fh, $_[0], 0; local $/; <$fh> // '' }
sub answer {
    my ($code, $h, $body) = curl(url($_[0]));
    return "$code " . ($h->{'content-type'} // '-') . "\n$body";
}
my $want = answer('/cgidperl/idioms/carppkg.pl');
ok t_cmp($want, qr/<!-- warning: carppkgmarker -->\nok\n\z/, 'mod_cgid: the warning in the body, as a comment');
# (the engine's first CGI::Carp script, then the one with its package)
answer('/eperl/idioms/carpfirst.pl');
my $at = -s $logf;
my @got = map { answer('/eperl/idioms/carppkg.pl') } 1 .. 2;
ok t_cmp("$got[0]\n--\n$got[1]", "$want\n--\n$want", 'engine, after another CGI::Carp script: as under mod_cgid, twice');
sleep 1;
my $log = log_from($at);
my @stamped = $log =~ /\] carppkg\.pl: carppkgmarker$/mg;
my @all = $log =~ /carppkgmarker/g;
ok t_cmp(scalar(@all), 2, 'the engine: two warnings in the log');
ok t_cmp(scalar(@stamped), 2, "each stamped by CGI::Carp with the script's name, as under mod_cgid");
