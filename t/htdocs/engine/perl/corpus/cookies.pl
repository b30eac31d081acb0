#!/usr/bin/perl
print "Set-Cookie: a=1; path=/\nSet-Cookie: b=2; path=/\nContent-Type: text/plain\n\ncookies\n";
