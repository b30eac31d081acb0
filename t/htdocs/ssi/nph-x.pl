#!/usr/bin/perl
# An nph script: never included (mod_cgi refuses it).
use strict;
use warnings;
print "HTTP/1.0 200 OK\r\nContent-Type: text/plain\r\n\r\nnph body\n";
