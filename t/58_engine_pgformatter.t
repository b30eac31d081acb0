# Issue 22, part 1: pg_format (Debian's pgformatter package: a Perl CGI
# script whose module, pgFormatter::CGI, reads its CSS from its own
# __DATA__ at every request, and dies on a warning: `use warnings FATAL`),
# unmodified, through the Perl engine: the form, SQL formatted by GET and
# by POST with options, and the form again, each the same status, type and
# body as through mod_cgid (clock times aside), and one engine process
# serves them all.
use strict;
use warnings FATAL => 'all';
use Apache::Test;
use Apache::TestUtil;
use lib 't/lib', 't/htdocs/apps';
use AppTest qw(curl);
use SideBySide qw(engine_served_all);

plan skip_all => 'pgformatter is not installed (apt-get install pgformatter)'
    unless -f '/usr/lib/cgi-bin/pg_format';

my $sql = 'select a, b from t where x = 1 and y in (select z from u) order by 2';
my @reqs = ([ 'the form' ],
            [ 'SQL by GET', '-G', '--data-urlencode', "content=$sql" ],
            [ 'SQL by POST, keywords upper case, 2 spaces', '--data-urlencode', "content=$sql",
              '--data-urlencode', 'uc_keyword=2', '--data-urlencode', 'spaces=2',
              '--data-urlencode', 'action=format' ],
            [ 'another POST', '--data-urlencode', 'content=update t set a = 1 where b is null',
              '--data-urlencode', 'action=format' ],
            [ 'the form again' ]);
plan tests => 3 * @reqs + 2;

my $cfg = Apache::Test::config();
sub get {
    my ($vh, @args) = @_;
    my ($code, $h, $body) = curl('-H', 'Host: pgformat.test', @args,
                                 'http://127.0.0.1:' . $cfg->port($vh) . '/pg_format');
    $body =~ s/(HTTP-EQUIV="(?:Expires|Date)" CONTENT=")[^"]*"/$1TIME"/g;
    return ($code, $h->{'content-type'} // '', $body);
}

for my $r (@reqs) {
    my ($what, @args) = @$r;
    my @ref = get('cgiplus_pgformat_cgid', @args);
    my @got = get('cgiplus_pgformat_engine', @args);
    ok t_cmp($got[0], $ref[0], "$what: the status ($ref[0])");
    ok t_cmp($got[1], $ref[1], "$what: the content type");
    ok t_cmp($got[2] eq $ref[2] ? 'same' : 'different', 'same', "$what: the same body (" . length($ref[2]) . ' bytes)');
}
my (undef, undef, $out) = get('cgiplus_pgformat_engine', '--data-urlencode', "content=$sql",
                              '--data-urlencode', 'uc_keyword=2', '--data-urlencode', 'action=format');
ok t_cmp($out, qr/>SELECT<.*>FROM<.*>WHERE</s, 'the SQL came back formatted, its keywords upper case');
engine_served_all($cfg->port('cgiplus_pgformat_engine'), 'pgformat', scalar @reqs, 'one engine process served every pg_format request');
