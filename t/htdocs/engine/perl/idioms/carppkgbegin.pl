#!/usr/bin/perl
# CGI::Carp's fatalsToBrowser imported into a package the script declares,
# and a BEGIN block that dies (the W3C Markup Validator's `check` without
# its configuration): CGI::Carp's 500 page.
use strict;
use warnings;
package My::App;
use CGI::Carp qw(fatalsToBrowser);
BEGIN { die "carppkgbegin: no configuration\n" unless $ENV{CARPPKG_NEVER_SET} }
print "Content-Type: text/plain\n\nok\n";
