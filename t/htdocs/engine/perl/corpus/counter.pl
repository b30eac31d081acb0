#!/usr/bin/perl
# Package globals without my: fresh in every CGI process.
$count++;
push @list, "item";
$seen{$ENV{QUERY_STRING}}++;
print "Content-Type: text/plain\n\ncount=$count list=", scalar(@list), " seen=", scalar(keys %seen), "\n";
