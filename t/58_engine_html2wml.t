# html2wml (Debian's package: a Perl CGI script that fetches an HTML page
# with LWP and converts it to WML; it sets CGI.pm's $POST_MAX to 1 kB and
# turns uploads off at run time), unmodified, through the Perl engine:
# pages, cards split, decks split, its debug page, a page not found, GET
# and POST, each the same status, type and body as through mod_cgid (ports
# and its timing line aside), twice; then, on the same engine, form.pl
# takes a 3 kB upload, as under mod_cgid (html2wml's settings were every
# later script's: the upload dropped, the POST refused). One engine process
# serves them all.
use strict;
use warnings FATAL => 'all';
use Apache::Test;
use Apache::TestUtil;
use lib 't/lib', 't/htdocs/apps';
use AppTest qw(curl);
use SideBySide qw(same_pages engine_served_all);

plan skip_all => 'html2wml is not installed (apt-get install html2wml)' unless -f '/usr/lib/cgi-bin/html2wml';

my $page = 'url=/html2wml/page.html';
my @pages = (["?$page"], ["?$page&s=200&split-card=1"], ["?$page&split-deck=1&s=300"],
             ["?$page&split-deck=1&s=300&id=wdf001"], ["?$page&d=1"], ["?$page&n=1&a=1"],
             ['?url=/html2wml/other.html'], ['?url=/html2wml/nosuch.html'], ['', '--data', $page]);
@pages = (@pages, @pages);
my $vars = Apache::Test::config()->{vars};
my $file = "$vars->{t_logs}/html2wml_upload.txt";
open my $fh, '>', $file or die "$file: $!";
print $fh "y" x 3000;
close $fh;
my @upload = ('-F', "file=\@$file;type=text/plain", '-F', 'a=1');
plan tests => 3 * @pages + 3 + 1;

my $cfg = Apache::Test::config();
my %page = map { (join(' ', @$_) => $_) } @pages;
same_pages([map { join ' ', @$_ } @pages], sub {
    my ($side, $key) = @_;
    my ($q, @args) = @{ $page{$key} };
    my $port = $cfg->port($side eq 'ref' ? 'cgiplus_html2wml_cgid' : 'cgiplus_html2wml_engine');
    my ($code, $h, $body) = curl(@args, "http://127.0.0.1:$port/h/html2wml$q");
    $body =~ s/127\.0\.0\.1:$port/HOST/g;
    $body =~ s/(Time: )[^<]*/$1TIME/g;
    return ($code, $h->{'content-type'} // '', $body);
});
# After html2wml, on its engine: an upload of 3 kB, twice
my ($rcode, undef, $rbody) = curl(@upload, 'http://127.0.0.1:' . $cfg->port('cgiplus_html2wml_cgid') . '/h/form.pl');
ok t_cmp("$rcode $rbody", qr/\A200 method=POST\nparam a=1\nfile name=html2wml_upload\.txt size=3000 /,
         'mod_cgid: form.pl takes the upload');
for my $n (1, 2) {
    curl('http://127.0.0.1:' . $cfg->port('cgiplus_html2wml_engine') . "/h/html2wml?$page");
    my ($code, undef, $body) = curl(@upload, 'http://127.0.0.1:' . $cfg->port('cgiplus_html2wml_engine') . '/h/form.pl');
    $body =~ s/127\.0\.0\.1:\d+/HOST/g;
    $rbody =~ s/127\.0\.0\.1:\d+/HOST/g;
    ok t_cmp("$code $body", "$rcode $rbody", "engine, after html2wml ($n): form.pl takes the upload, as under mod_cgid");
}
engine_served_all($cfg->port('cgiplus_html2wml_engine'), 'html2wml', scalar(@pages) + 4,
                  'one engine process served every request');
