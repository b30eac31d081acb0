#!/usr/bin/perl
print "Status: 404 Not Found\nContent-type:text/plain\nX-Corpus: yes\n\nno such thing\n";
