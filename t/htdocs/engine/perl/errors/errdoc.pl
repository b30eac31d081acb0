#!/usr/bin/perl
# an ErrorDocument 500 that is a CGI script (t/58_engine_errors.t)
my ($script) = ($ENV{REDIRECT_URL} // '') =~ m{([^/]*)\z};
print "Content-Type: text/html\n\n<p>errdoc status=$ENV{REDIRECT_STATUS} script=$script</p>\n";
