#!/usr/bin/perl
# DATA is the script's own file, open after __DATA__: read a line, then
# rewind it and read the file's first line (a script printing its source).
my $first = <DATA>;
my $at = tell(DATA) > 0 ? 'past the code' : 'at 0';
seek(DATA, 0, 0);
my $top = <DATA>;
print "Content-Type: text/plain\n\ndata: $first", "tell: $at\n", "top: $top", "fileno: ", (defined fileno(DATA) ? 'a file' : 'none'), "\n";
__DATA__
the data line
second
