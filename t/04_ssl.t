# Over HTTPS the script sees mod_ssl's variables (SSLOptions +StdEnvVars).
use strict;
use warnings FATAL => 'all';
use Apache::Test;
use Apache::TestUtil;
use Apache::TestRequest qw(GET);
use LWP::UserAgent;

plan tests => 5;

my $r = GET '/c/env';
ok t_cmp($r->code, 200, 'clear GET /c/env');
ok t_cmp($r->content, qr/^GATEWAY_INTERFACE=CGI\/1\.1$/m, 'CGI environment present');
ok !($r->content =~ /^HTTPS=on$/m);

# Apache::TestRequest's https support expects its own CA set-up; the
# certificate here is self-signed by t/run-apache-test, so use LWP directly.
my $cfg = Apache::Test::config();
my $url = "https://$cfg->{vars}{servername}:" . $cfg->port('cgiplus_ssl') . '/c/env';
my $ua = LWP::UserAgent->new(ssl_opts => { verify_hostname => 0, SSL_verify_mode => 0 });
$r = $ua->get($url);
my $body = $r->content;
ok t_cmp($body, qr/^HTTPS=on$/m, 'HTTPS=on over TLS');
ok t_cmp($body, qr/^SSL_PROTOCOL=TLSv1\.[23]$/m, 'SSL_PROTOCOL over TLS');
