# ISINDEX queries, as mod_cgi: a plain CGI run whose query string has no
# '=' gets it as arguments (split on '+', %XX-decoded, shell metacharacters
# backslash-escaped); a query with '=' gives none, and so does a persistent
# worker (started once, before any request). Compared with mod_cgid on the
# same script, then the runner's caps (4094 arguments, 64 KiB).
use strict;
use warnings FATAL => 'all';
use Apache::Test;
use Apache::TestUtil;
use Apache::TestRequest ();
use LWP::UserAgent;

plan tests => 13;

my $cfg = Apache::Test::config();
my $base = 'http://' . Apache::TestRequest::hostport();
my $long = 'http://' . $cfg->{vars}{servername} . ':' . $cfg->port('cgiplus_longline');
my $ua = LWP::UserAgent->new(keep_alive => 1, timeout => 20);

sub args_of {
    my ($url) = @_;
    my $r = $ua->get($url);
    return "HTTP " . $r->code unless $r->code == 200;
    return $r->content;
}

ok t_cmp(args_of("$base/cgi-plain/argv.pl?a+b%20c+d"), "n=3\na\nb c\nd\n",
         'plain CGI: words split on +, each %XX-decoded');
ok t_cmp(args_of("$base/cgi-plain/argv.pl?x=1"), "n=0\n", "a query with '=': no arguments");
ok t_cmp(args_of("$base/cgi-plain/argv.pl?a+b=c"), "n=0\n", "'=' anywhere: no arguments");
ok t_cmp(args_of("$base/cgi-plain/argv.pl"), "n=0\n", 'no query: no arguments');
ok t_cmp(args_of("$base/cgi-plus/argv.pl?a+b"), "n=0\n", 'a persistent worker: no arguments');

# Edge cases: empty words kept, a bad escape left alone, %00 ends its word,
# %2B is a '+' inside a word, metacharacters escaped as mod_cgi does.
my $q = 'one++%zz+x%00y+%2B%41+%3B%24HOME+%28a%7Cb%29+%2F';
my $want = "n=8\none\n\n%zz\nx\n+A\n\\;\\\$HOME\n\\(a\\|b\\)\n/\n";
ok t_cmp(args_of("$base/cgi-plain/argv.pl?$q"), $want, 'edge cases as mod_cgi');
my $cgid = args_of("$base/compat-off/argv.cgi?$q");
ok t_cmp($cgid, $want, 'mod_cgid gives the same (reference)');
ok t_cmp(args_of("$base/compat-on/argv.cgi?$q"), $cgid, 'mod_cgiplus (CGIplusCompat) as mod_cgid');
ok t_cmp(args_of("$base/compat-on/argv.cgi?a+b%20c+d"), args_of("$base/compat-off/argv.cgi?a+b%20c+d"),
         'the plain example as mod_cgid');

# Caps: 4094 arguments (mod_cgi's), 64 KiB of argument bytes (NULs counted);
# what is over is dropped, as mod_cgi drops words over its count.
my $r = args_of("$long/cgi-plain/argv.pl?" . ('+' x 5000));
ok t_cmp(substr($r, 0, 7), "n=4094\n", '5001 words: 4094 arguments');
ok t_cmp(length($r), length("n=4094\n") + 4094, '... all of them empty');
# 40 words of 999 ';' (1999 bytes escaped, with the NUL): 32 fit in 64 KiB
my $word = ';' x 999;
$r = args_of("$long/cgi-plain/argv.pl?" . join('+', ($word) x 40));
ok t_cmp(substr($r, 0, 5), "n=32\n", '40 escaped words of 1998 bytes: 32 fit in 64 KiB');
ok t_cmp($r eq "n=32\n" . (('\\;' x 999) . "\n") x 32 ? 'whole' : 'cut', 'whole',
         '... each whole');
