# Issue 22, part 1: monshow.cgi (Debian's mon package: a Perl CGI script
# with `use English`, whose $PID and $RS are perl's $$ and $/), unmodified,
# through the Perl engine: with no mon server to ask (none runs here), its
# pages, the same status, type and body as through mod_cgid, from one
# engine process that lives on (it exited after each response while the
# engine reset `use English`'s names with the script's own variables).
use strict;
use warnings FATAL => 'all';
use Apache::Test;
use Apache::TestUtil;
use lib 't/lib', 't/htdocs/apps';
use AppTest qw(curl);
use SideBySide qw(same_pages engine_served_all);

plan skip_all => 'mon is not installed (apt-get install mon)' unless -f '/usr/lib/cgi-bin/monshow.cgi';

my @urls = ('', '?args=all', '?detail=none', '');
plan tests => 3 * @urls + 1;

my $cfg = Apache::Test::config();
same_pages(\@urls, sub {
    my ($side, $page) = @_;
    my ($code, $h, $body) = curl('-H', 'Host: mon.test', 'http://127.0.0.1:'
                                 . $cfg->port($side eq 'ref' ? 'cgiplus_mon_cgid' : 'cgiplus_mon_engine')
                                 . "/monshow$page");
    return ($code, $h->{'content-type'} // '', $body);
});
engine_served_all($cfg->port('cgiplus_mon_engine'), 'mon', scalar @urls,
                  'one engine process served every monshow.cgi request');
