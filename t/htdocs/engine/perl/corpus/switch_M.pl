#!/usr/bin/perl -MPOSIX=floor
# -M: a module imported before the file.
print "Content-Type: text/plain\n\nfloor=", floor(2.5), "\n";
