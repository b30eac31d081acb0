#!/usr/bin/perl
use CGI::Carp qw(fatalsToBrowser set_message);
BEGIN { set_message("corpus: contact the shop's admin") }
die "corpus-setmsg-die\n";
