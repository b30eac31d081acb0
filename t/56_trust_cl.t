# ap_trust_cgilike_cl set: a script's Content-Length stands, as under
# mod_cgi (httpd 2.4.59 and later), on HEAD too when the script sends the
# header alone, as frameworks answer HEAD (Werkzeug, Plack): mod_cgid keeps
# the length there, the module replaced it with the empty body's (none).
# Without the variable the length is never trusted.
use strict;
use warnings FATAL => 'all';
use Apache::Test;
use Apache::TestUtil;
use lib 't/htdocs/apps';
use AppTest qw(write_file curl url);

plan tests => 6;

my $vars = Apache::Test::config()->{vars};
my $script = <<"PY";
#!/usr/bin/python3
import os, sys
sys.path.insert(0, "$vars->{top_dir}/lib/python")
import cgiplus
while cgiplus.accept():
    sys.stdout.write("Content-Type: text/plain\\nContent-Length: 30\\n\\n")
    if os.environ.get("REQUEST_METHOD") != "HEAD":
        sys.stdout.write("123456789012345678901234567890")
    cgiplus.finish()
PY
write_file("$vars->{documentroot}/apps/trustcl.cgp", $script);
write_file("$vars->{documentroot}/apps/untrustcl.cgp", $script);

for my $i (1, 2) {    # relayed (a new worker's first request), then direct
    my ($code, $h) = curl('-I', url('/apps/trustcl.cgp'));
    ok t_cmp("$code " . ($h->{'content-length'} // 'none'), '200 30',
             "trusted ($i): HEAD keeps the script's Content-Length");
}
my ($code, $h, $body) = curl(url('/apps/trustcl.cgp'));
ok t_cmp("$code " . ($h->{'content-length'} // 'none') . " $body", '200 30 123456789012345678901234567890',
         'trusted: GET with its Content-Length');
($code, $h) = curl('-I', url('/apps/untrustcl.cgp'));
ok t_cmp("$code " . ($h->{'content-length'} // 'none'), '200 none', 'not trusted: HEAD without a length');
($code, $h) = curl('-I', url('/apps/untrustcl.cgp'));
ok t_cmp("$code " . ($h->{'content-length'} // 'none'), '200 none', 'not trusted: HEAD without a length (direct)');
($code, $h, $body) = curl(url('/apps/untrustcl.cgp'));
ok t_cmp($body, '123456789012345678901234567890', 'not trusted: GET, the body');
