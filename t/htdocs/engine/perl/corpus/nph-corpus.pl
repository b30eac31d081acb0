#!/usr/bin/perl
$| = 1;
print "$ENV{SERVER_PROTOCOL} 200 OK\r\nContent-Type: text/plain\r\nConnection: close\r\n\r\nnph body\n";
