#!/usr/bin/perl
print "Status: 302 Found\nLocation: http://example.com/elsewhere\nContent-Type: text/html\n\n<a href=\"http://example.com/elsewhere\">moved</a>\n";
