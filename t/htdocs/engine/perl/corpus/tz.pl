#!/usr/bin/perl
use POSIX qw(strftime tzset);
$ENV{TZ} = 'Asia/Tokyo'; tzset();
print "Content-Type: text/plain\n\n", strftime('%H %Z', localtime(0)), "\n";
