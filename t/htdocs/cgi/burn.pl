#!/usr/bin/perl
# Spins without a word until a CPU limit stops it (t/3a_cgi_rlimit.t).
1 while 1;
