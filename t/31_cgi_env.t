# The CGI environment, as mod_cgi builds it: ap_add_common_vars and
# ap_add_cgi_vars, PATH_INFO / PATH_TRANSLATED, SCRIPT_FILENAME,
# REMOTE_USER / AUTH_TYPE, UNIQUE_ID, HTTPS and SSL_* (StdEnvVars), never
# HTTP_PROXY; in both modes. Then the whole environment of one script run
# by mod_cgid and by mod_cgiplus (plain CGI), compared variable by variable.
use strict;
use warnings FATAL => 'all';
use Apache::Test;
use Apache::TestUtil;
use Apache::TestRequest ();
use LWP::UserAgent;
use MIME::Base64 qw(encode_base64);

my @modes = ('/cgi-plain', '/cgi-plus');
plan tests => @modes * 18 + 3 + 6 + 4 + 6 + 5 + 4 + 2;

my $cfg = Apache::Test::config();
my $vars = $cfg->{vars};
my $docroot = $vars->{documentroot};
my $base = 'http://' . Apache::TestRequest::hostport();
my $ua = LWP::UserAgent->new(keep_alive => 1, timeout => 20,
                             ssl_opts => { verify_hostname => 0, SSL_verify_mode => 0 });

sub env_of {
    my ($r) = @_;
    my %e;
    for (split /\n/, $r->content) {
        $e{$1} = $2 if /^([^=]+)=(.*)$/;
    }
    return \%e;
}

for my $m (@modes) {
    my $r = $ua->get("$base$m/env.pl/extra/path?a=b", 'X-Test' => 'one',
                     'Proxy' => 'http://evil.example/');
    ok t_cmp($r->code, 200, "$m env.pl: 200");
    my $e = env_of($r);
    ok t_cmp($e->{PATH_INFO}, '/extra/path', "$m PATH_INFO");
    ok t_cmp($e->{PATH_TRANSLATED}, "$docroot/extra/path", "$m PATH_TRANSLATED");
    ok t_cmp($e->{SCRIPT_FILENAME}, "$docroot/cgi/env.pl", "$m SCRIPT_FILENAME");
    ok t_cmp($e->{SCRIPT_NAME}, "$m/env.pl", "$m SCRIPT_NAME");
    ok t_cmp($e->{REQUEST_URI}, "$m/env.pl/extra/path?a=b", "$m REQUEST_URI");
    ok t_cmp($e->{QUERY_STRING}, 'a=b', "$m QUERY_STRING");
    ok t_cmp($e->{HTTP_X_TEST}, 'one', "$m request header as HTTP_X_TEST");
    ok t_cmp(exists $e->{HTTP_PROXY} ? $e->{HTTP_PROXY} : 'absent', 'absent',
             "$m a Proxy header never becomes HTTP_PROXY");
    ok t_cmp($e->{UNIQUE_ID} // '', qr/^[A-Za-z0-9@\-_]{19,}$/, "$m UNIQUE_ID from mod_unique_id");
    ok t_cmp($e->{GATEWAY_INTERFACE}, 'CGI/1.1', "$m GATEWAY_INTERFACE");
    ok t_cmp($e->{SERVER_PROTOCOL}, 'HTTP/1.1', "$m SERVER_PROTOCOL");
    ok t_cmp($e->{REQUEST_METHOD}, 'GET', "$m REQUEST_METHOD");
    ok t_cmp($e->{REMOTE_ADDR}, '127.0.0.1', "$m REMOTE_ADDR");
    ok t_cmp($e->{DOCUMENT_ROOT}, $docroot, "$m DOCUMENT_ROOT");
    ok t_cmp($e->{CGIPLUSEOF} // 'absent', $m eq '/cgi-plus' ? '(set)' : 'absent',
             "$m CGIPLUSEOF only for persistent workers");
    ok t_cmp(exists $e->{HTTPS} ? 'set' : 'absent', 'absent', "$m no HTTPS in clear");
    # a GET has no length: none for plain CGI (as mod_cgi), 0 for a worker (CGIplus)
    ok t_cmp($e->{CONTENT_LENGTH} // '(unset)', $m eq '/cgi-plus' ? '0' : '(unset)',
             "$m CONTENT_LENGTH of a GET");
}

# Basic authentication: REMOTE_USER and AUTH_TYPE.
my $r = $ua->get("$base/cgi-auth/env.pl");
ok t_cmp($r->code, 401, 'no credentials: 401 before the script runs');
$r = $ua->get("$base/cgi-auth/env.pl",
              Authorization => 'Basic ' . encode_base64('cgiuser:cgipass', ''));
my $e = env_of($r);
ok t_cmp($e->{REMOTE_USER}, 'cgiuser', 'REMOTE_USER');
ok t_cmp($e->{AUTH_TYPE}, 'Basic', 'AUTH_TYPE');

# TLS with SSLOptions +StdEnvVars, over HTTP/1.1 and HTTP/2.
my $tls = "https://$vars->{servername}:" . $cfg->port('cgiplus_h2tls');
$r = $ua->get("$tls/cgi-plus/env.pl");
$e = env_of($r);
ok t_cmp($e->{HTTPS}, 'on', 'HTTPS=on over TLS');
ok t_cmp($e->{SSL_PROTOCOL}, qr/^TLSv1\.[23]$/, 'SSL_PROTOCOL');
ok t_cmp($e->{SSL_SERVER_S_DN_CN}, 'localhost', 'SSL_SERVER_S_DN_CN');
my $h2 = `curl -sk --http2 '$tls/cgi-plain/env.pl'`;
my %h2e = map { /^([^=]+)=(.*)$/ ? ($1 => $2) : () } split /\n/, $h2;
ok t_cmp($h2e{SERVER_PROTOCOL}, 'HTTP/2.0', 'over h2: SERVER_PROTOCOL');
ok t_cmp($h2e{HTTPS}, 'on', 'over h2: HTTPS=on');
ok t_cmp($h2e{SSL_CIPHER} // '', qr/\w/, 'over h2: SSL_CIPHER');

# +ExportCertData: the PEM certificate, line ends included, as mod_cgid
# gives it, to library scripts in Perl, Python, C and sh (record mode carries a
# line end as a space; the libraries put mod_ssl's PEM back together).
my $pem = `curl -sk '$tls/cgid-table/cert.pl'`;
ok t_cmp($pem, qr/\A-----BEGIN CERTIFICATE-----\n[A-Za-z0-9+\/=\n]+\n-----END CERTIFICATE-----\n\z/,
         'mod_cgid: SSL_SERVER_CERT in PEM');
for my $u ('/cgi-plus/cert.pl', '/cgi-relay/cert.pl', '/cgi-plus/cert.py', '/c/env', '/cgi-plus/cert.sh') {
    my $got = join '', map { `curl -sk --http2 '$tls$u'` } 1 .. 2;
    # the C example prints every variable: its SSL_SERVER_CERT's value
    $got = join '', $got =~ /^SSL_SERVER_CERT=(.*?-----END CERTIFICATE-----\n)/msg if $u eq '/c/env';
    ok t_cmp($got, $pem x 2, "$u: the same PEM, twice (one worker's first and second request)");
}
# An ErrorDocument's request: REDIRECT_SSL_SERVER_CERT, the failed request's copy.
my $rpem = `curl -sk '$tls/pem404-cgid/missing'`;
ok t_cmp($rpem, $pem, 'mod_cgid: REDIRECT_SSL_SERVER_CERT in an ErrorDocument, the same PEM');
for my $k (qw(pl py sh c)) {
    my $got = `curl -sk --http2 '$tls/pem404-$k/missing'`;
    ($got) = $got =~ /^REDIRECT_SSL_SERVER_CERT=(.*?-----END CERTIFICATE-----\n)/ms if $k eq 'c';
    ok t_cmp($got // '', $rpem, "/pem404-$k/: REDIRECT_SSL_SERVER_CERT as mod_cgid gives it");
}

# A variable over the runner protocol's 64 KiB (a 70 KB header here; a
# client certificate over 48 KB exported in PEM is the real case): mod_cgid
# passes it, mod_cgiplus answers 500 (docs/cgi-compat.md) and logs the
# variable's name, never its value (a cookie, a certificate).
{
    my $long = "http://$vars->{servername}:" . $cfg->port('cgiplus_longline');
    my $big = 's3cr3tv4lue' x 6400;
    my $logf = "$vars->{t_logs}/error_log";
    my $off = -s $logf;
    my $ua1 = LWP::UserAgent->new(keep_alive => 0, timeout => 20);
    my $r1 = $ua1->get("$long/compat-off/env.cgi", 'X-Big' => $big);
    ok t_cmp($r1->code . ' ' . ($r1->content =~ /^HTTP_X_BIG=s3cr3tv4lue/m ? 'passed' : 'not passed'),
             '200 passed', 'mod_cgid passes a 70 KB variable');
    $r1 = $ua1->get("$long/cgi-plus/env.pl", 'X-Big' => $big);
    ok t_cmp($r1->code, 500, 'mod_cgiplus: 500 for a variable over 64 KiB');
    open my $lf, '<', $logf or die "$logf: $!";
    seek $lf, $off, 0;
    my @lines = grep { /CGIPLUS1030/ } <$lf>;
    ok t_cmp(scalar(@lines) == 1 ? $lines[0] : "@lines",
             qr/CGI variable HTTP_X_BIG \(10 bytes of name, 70400 of value\)/, '1030 names the variable');
    ok t_cmp(scalar(grep { /s3cr3t/ } @lines), 0, 'and shows nothing of its value');
}

# The same sh script under mod_cgid and under mod_cgiplus (plain CGI via
# CGIplusCompat): the environments must match, but for what differs by
# nature (the URL, the client port, the unique id).
sub env_list {
    my ($url) = @_;
    # a fresh agent each: identical request headers for both
    my $r = LWP::UserAgent->new(keep_alive => 0, timeout => 20)->get($url);
    my %e = map { /^([^=]+)=(.*)$/ ? ($1 => $2) : () } split /\n/, $r->content;
    delete @e{qw(UNIQUE_ID REMOTE_PORT)};
    s{/compat-o(?:ff|n)/}{/compat-X/}g for values %e;
    return \%e;
}
my $cgid = env_list("$base/compat-off/env.cgi");
my $ours = env_list("$base/compat-on/env.cgi");
my @diff;
for my $k (sort keys %{{ %$cgid, %$ours }}) {
    next if $k eq 'CONTENT_LENGTH';    # checked below
    next if $k eq 'PATH';              # ours is fixed (docs/cgi-compat.md): t/50_ship.t
    my ($a, $b) = ($cgid->{$k}, $ours->{$k});
    push @diff, "$k: mod_cgid " . ($a // '(unset)') . ", mod_cgiplus " . ($b // '(unset)')
        unless defined $a && defined $b && $a eq $b;
}
ok t_cmp(scalar(keys %$cgid) > 20 ? 'many' : 'few', 'many', 'mod_cgid environment read');
ok t_cmp(join("\n", @diff), '', 'the same environment as mod_cgid');
# Names httpd's conversion changes (SetEnv 9LIVES, A.B-C): as mod_cgid has them.
ok t_cmp($ours->{_LIVES} // '(unset)', 'nine', 'a leading digit becomes _, as mod_cgid has it')
    && t_cmp($cgid->{_LIVES} // '(unset)', 'nine');
ok t_cmp($ours->{A_B_C} // '(unset)', 'dotted', '. and - become _, as mod_cgid has them')
    && t_cmp($cgid->{A_B_C} // '(unset)', 'dotted');
ok t_cmp($ours->{PATH} // '', '/usr/local/bin:/usr/bin:/bin',
         "PATH: the fixed one, where mod_cgid passes httpd's own ($cgid->{PATH})");
# mod_cgi sets CONTENT_LENGTH only for a request that has one: a GET gets none.
ok t_cmp($ours->{CONTENT_LENGTH} // '(unset)', $cgid->{CONTENT_LENGTH} // '(unset)',
         'CONTENT_LENGTH of a GET as mod_cgid');
