#!/usr/bin/perl
# CGI::Carp imported into a package the script declares, as the W3C
# Markup Validator's `check` does: its warnings are CGI::Carp's, which
# warningsToBrowser prints into the body and stamps in the error log.
use strict;
use warnings;
package My::App;
use CGI::Carp qw(carp croak fatalsToBrowser warningsToBrowser);
print "Content-Type: text/html\n\n";
warningsToBrowser(1);
warn "carppkgmarker\n";
print "ok\n";
