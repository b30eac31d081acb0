#!/usr/bin/perl
# format and write: a page top once per request, this script's formats only.
our ($name, $qty);
format STDOUT_TOP =
Name       Qty
---------- ---
.
format STDOUT =
@<<<<<<<<< @>>
$name,     $qty
.
print "Content-Type: text/plain\n\n";
for (['apple', 3], ['pear', 12]) { ($name, $qty) = @$_; write; }
