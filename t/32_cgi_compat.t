# Drop-in mode: CGIplusCompat on takes mod_cgi's cgi-script handler over in
# its scope, so an unedited configuration (ScriptAlias; Options +ExecCGI
# with AddHandler cgi-script) runs through the runner: plain CGI by
# default, persistent where CGIplusMode cgiplus says so. Outside that scope
# mod_cgid still serves the same script.
use strict;
use warnings FATAL => 'all';
use Apache::Test;
use Apache::TestUtil;
use Apache::TestRequest qw(GET);

plan tests => 16;

sub who {
    my ($url) = @_;
    my $r = GET $url;
    my %w = map { /^(\w+)=(.*)$/ ? ($1 => $2) : () } split /\n/, $r->content;
    return ($r->code, \%w);
}

# Outside CGIplusCompat: mod_cgid runs it (its daemon is an apache2).
my ($rc, $w) = who('/compat-off/who.cgi');
ok t_cmp($rc, 200, 'mod_cgid: 200');
ok t_cmp($w->{parent}, qr{apach}, 'mod_cgid: the script is a child of httpd');

# ScriptAlias (no Options ExecCGI needed), taken over.
($rc, $w) = who('/compat-bin/who.cgi');
ok t_cmp($rc, 200, 'ScriptAlias: 200');
ok t_cmp($w->{parent}, 'cgiplus-runner', 'ScriptAlias: run by the runner');
ok t_cmp($w->{persistent}, 0, 'ScriptAlias: plain CGI by default');

# Options +ExecCGI + AddHandler cgi-script, taken over.
($rc, $w) = who('/compat/who.cgi');
ok t_cmp($rc, 200, 'AddHandler cgi-script: 200');
ok t_cmp($w->{parent}, 'cgiplus-runner', 'AddHandler cgi-script: run by the runner');
ok t_cmp($w->{persistent}, 0, 'AddHandler cgi-script: plain CGI by default');
my $first = $w->{pid};
($rc, $w) = who('/compat/who.cgi');
ok t_cmp($w->{pid} != $first ? 'new process' : 'same process', 'new process',
         'plain CGI: a process per request');

# Persistent where configured (CGIplusMode cgiplus, one worker).
($rc, $w) = who('/compat-plus/who.cgi');
ok t_cmp($rc, 200, 'compat + CGIplusMode cgiplus: 200');
ok t_cmp($w->{persistent}, 1, 'compat + CGIplusMode cgiplus: persistent');
my $pid = $w->{pid};
($rc, $w) = who('/compat-plus/who.cgi');
ok t_cmp($w->{pid}, $pid, 'the same worker serves the next request');

# mod_cgi's checks still apply: Options ExecCGI off is 403, as mod_cgi.
my $r = GET '/compat/no-such.cgi';
ok t_cmp($r->code, 404, 'a missing script: 404');
$r = GET '/compat-bin/';
ok t_cmp($r->code, 403, 'a directory under ScriptAlias: 403');

# A cgiplus-script handler elsewhere is unaffected by CGIplusCompat.
$r = GET '/cgi-plus/perl.pl';
ok t_cmp($r->code, 200, 'cgiplus-script handler still served');
ok t_cmp($r->content, "perl cgi\n", 'and its body');
