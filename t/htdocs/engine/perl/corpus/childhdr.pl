#!/usr/bin/perl
# The child prints the whole response, header and all.
system('/bin/sh', '-c', 'printf "Content-Type: text/plain\n\nfrom the child\n"');
