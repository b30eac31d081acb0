# Over HTTPS the script sees mod_ssl's variables (SSLOptions +StdEnvVars).
use strict;
use warnings FATAL => 'all';
use Apache::Test;
use Apache::TestUtil;
use Apache::TestRequest qw(GET);

plan tests => 5;

my $r = GET '/c/env';
ok t_cmp($r->code, 200, 'clear GET /c/env');
ok t_cmp($r->content, qr/^GATEWAY_INTERFACE=CGI\/1\.1$/m, 'CGI environment present');
ok !($r->content =~ /^HTTPS=on$/m);

Apache::TestRequest::module('cgiplus_ssl');
Apache::TestRequest::scheme('https');
Apache::TestRequest::user_agent(reset => 1, keep_alive => 1,
    ssl_opts => { verify_hostname => 0, SSL_verify_mode => 0 });
$r = GET '/c/env';
my $body = $r->content;
ok t_cmp($body, qr/^HTTPS=on$/m, 'HTTPS=on over TLS');
ok t_cmp($body, qr/^SSL_PROTOCOL=TLSv1\.[23]$/m, 'SSL_PROTOCOL over TLS');
