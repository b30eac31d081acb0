#!/usr/bin/perl
# The server's certificate as mod_ssl exports it (SSLOptions
# +ExportCertData), byte for byte: t/31_cgi_env.t.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/../../../lib/perl";
use CGIplus;

while (CGIplus::accept()) {
    # ?NAME: that variable instead (REDIRECT_SSL_SERVER_CERT in an ErrorDocument)
    my $name = ($ENV{QUERY_STRING} // '') =~ /\A([A-Z_]+)\z/ ? $1 : 'SSL_SERVER_CERT';
    print "Content-Type: text/plain\n\n", $ENV{$name} // '(unset)';
    CGIplus::finish();
}
