# man2html (Debian's package: the compiled man2html, mansec and manwhatis,
# the shell and gawk script mansearch), unmodified, as plain CGI through
# CGIplusCompat, each page twice: the contents page, a page by name, by
# section and name, by path in the query and in PATH_INFO, a name that is
# no page (404), a path outside the manual refused (403), section indexes,
# the search form, HEAD: each the same status, type and body as through
# mod_cgid (ports and the clock aside). (Not a POST: man2html never reads
# its body, and mod_cgid then answers nothing or 500 now and then:
# docs/cgi-compat.md, "An unread body".)
use strict;
use warnings FATAL => 'all';
use Apache::Test;
use Apache::TestUtil;
use lib 't/lib', 't/htdocs/apps';
use AppTest qw(curl);
use SideBySide qw(same_pages);

plan skip_all => 'man2html is not installed (apt-get install man2html)'
    unless -x '/usr/lib/cgi-bin/man/man2html' && -x '/usr/lib/cgi-bin/man/mansec';

my @pages = (['man2html'], ['man2html?query=ls'], ['man2html?1+ls'], ['man2html?query=nosuchpageatall'],
             ['man2html?/usr/share/man/man1/ls.1.gz'], ['man2html/usr/share/man/man5/passwd.5.gz'],
             ['man2html?/etc/passwd'], ['mansec?5'], ['manwhatis?5'], ['mansearch'],
             ['man2html?1+ls', '-I']);
@pages = (@pages, @pages);
plan tests => 3 * @pages;

my $cfg = Apache::Test::config();
my %page = map { (join(' ', @$_) => $_) } @pages;
same_pages([map { join ' ', @$_ } @pages], sub {
    my ($side, $key) = @_;
    my ($q, @args) = @{ $page{$key} };
    my $port = $cfg->port($side eq 'ref' ? 'cgiplus_man2html_cgid' : 'cgiplus_man2html_compat');
    my ($code, $h, $body) = curl(@args, "http://127.0.0.1:$port/cgi-bin/man/$q");
    $body =~ s/127\.0\.0\.1:$port/HOST/g;
    # (the time a page was made, in its footer: its date too, which
    # midnight UTC between the sides changes)
    $body =~ s/^Time: \d\d:\d\d:\d\d GMT, [A-Z][a-z]+ \d\d, \d{4}$/Time: TIME GMT, DATE/mg;
    return ($code, $h->{'content-type'} // '', $body);
});
