# The core of cgi-lib.pl (perl 4, no package): ReadParse fills %in, or the
# glob it is given, and joins repeated names with "\0".
sub ReadParse {
    local (*in) = @_ if @_;
    local ($i, $key, $val);
    $in = $ENV{'QUERY_STRING'};
    if ($ENV{'REQUEST_METHOD'} eq "POST") { read(STDIN, $in, $ENV{'CONTENT_LENGTH'}); }
    @in = split(/[&;]/, $in);
    foreach $i (0 .. $#in) {
        $in[$i] =~ s/\+/ /g;
        ($key, $val) = split(/=/, $in[$i], 2);
        $key =~ s/%(..)/pack("c", hex($1))/ge;
        $val =~ s/%(..)/pack("c", hex($1))/ge;
        $in{$key} .= "\0" if (defined($in{$key}));
        $in{$key} .= $val;
    }
    return scalar(@in);
}
sub PrintHeader { return "Content-type: text/plain\n\n"; }
1;
