#!/usr/bin/perl
# A modulino as a class: `__PACKAGE__->run unless caller` (t/58_engine_idioms.t)
use strict;
use warnings;

sub run {
    my ($class) = @_;
    print "Content-Type: text/plain\n\nrun by the ", ($class eq __PACKAGE__ ? 'package' : 'other'), "\n";
}

__PACKAGE__->run() unless caller;
print "after\n" if !caller;
