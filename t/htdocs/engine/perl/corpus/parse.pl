#!/usr/bin/perl
# cgi-lib.pl's way: the query parsed by hand into a global %in.
sub ReadParse {
    my $in = $ENV{REQUEST_METHOD} eq 'POST' ? do { read(STDIN, my $b, $ENV{CONTENT_LENGTH}); $b } : $ENV{QUERY_STRING};
    for (split /[&;]/, $in) {
        s/\+/ /g;
        my ($k, $v) = split /=/, $_, 2;
        s/%(..)/pack("c", hex($1))/ge for $k, $v;
        $in{$k} .= "\0" if defined $in{$k};
        $in{$k} .= $v;
    }
}
ReadParse();
print "Content-Type: text/plain\n\n", map { "$_=" . join('|', split /\0/, $in{$_}) . "\n" } sort keys %in;
