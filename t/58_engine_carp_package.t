# CGI::Carp imported into a package the script declares (`package
# My::App; use CGI::Carp ...`, as the W3C Markup Validator's `check`):
# its warning handler (stamped warnings, warningsToBrowser), also where
# another script of the engine loaded CGI::Carp first (they were plain
# perl warnings: nothing in the body, no stamp in the log), and its
# fatalsToBrowser page for a BEGIN block that dies and for a die as the
# script runs, before its header or after it (httpd's own 500 page, or
# nothing), each as under mod_cgid.
use strict;
use warnings FATAL => 'all';
use Apache::Test;
use Apache::TestUtil;
use lib 't/htdocs/apps';
use AppTest qw(curl url);

plan tests => 8;

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

for my $q ('carppkgbegin.pl', 'carppkgdie.pl', 'carppkgdie.pl?after') {
    my $ref = answer("/cgidperl/idioms/$q");
    my @eng = map { answer("/eperl/idioms/$q") } 1 .. 2;
    ok t_cmp("$eng[0]\n--\n$eng[1]", "$ref\n--\n$ref", "$q: CGI::Carp's page, as under mod_cgid, twice");
}
ok t_cmp(answer('/cgidperl/idioms/carppkgbegin.pl'), qr/\A500 text\/html.*<h1>Software error:<\/h1>\s*<pre>carppkgbegin: no configuration/s,
         "mod_cgid: the BEGIN block's die is CGI::Carp's page");
