# dwww (Debian's package: a Perl CGI script that parses its query as
# cgi-lib.pl did, then execs dwww-convert or dwww-find, whose output is
# the page), unmodified, through the Perl engine: directory listings,
# documents, searches, a redirect, its own error page and the converter's
# 403, GET and POST, each the same status, type and body as through
# mod_cgid (ports and clock times aside), from one engine process (the
# exec replaced the engine: every such page was cut, and a new engine
# started for the next).
use strict;
use warnings FATAL => 'all';
use Apache::Test;
use Apache::TestUtil;
use lib 't/lib', 't/htdocs/apps';
use AppTest qw(curl);
use SideBySide qw(same_pages engine_served_all);

plan skip_all => 'dwww is not installed (apt-get install dwww)' unless -f '/usr/lib/cgi-bin/dwww';

my @pages = ([''], ['/usr/share/doc/dwww/?type=dir'], ['/usr/share/doc/dwww/README?type=file'],
             ['/usr/share/doc/dwww/changelog.gz?type=text/plain'], ['?search=dwww'],
             ['?search=doc-base&searchtype=m'], ['?type=dir&location=/usr/share/doc/cvs'],
             ['/usr/share/doc/doc-base/doc-base.html?type=html'], ['?type=file&location=/etc/<x>'],
             ['?type=dir&location=/nonexistent'], ['', '--data', 'search=dwww&searchtype=m']);
@pages = (@pages, @pages);
plan tests => 3 * @pages + 1;

my $cfg = Apache::Test::config();
my %page = map { (join(' ', @$_) => $_) } @pages;
same_pages([map { join ' ', @$_ } @pages], sub {
    my ($side, $key) = @_;
    my ($q, @args) = @{ $page{$key} };
    my $port = $cfg->port($side eq 'ref' ? 'cgiplus_dwww_cgid' : 'cgiplus_dwww_engine');
    my ($code, $h, $body) = curl(@args, "http://127.0.0.1:$port/d/dwww$q");
    $body =~ s/127\.0\.0\.1:$port/HOST/g;
    $body =~ s/(version [\d.]+ on )[^<]*/$1TIME/g;
    return ($code, $h->{'content-type'} // '', $body);
});
engine_served_all($cfg->port('cgiplus_dwww_engine'), 'dwww', scalar @pages,
                  'one engine process served every dwww request');
