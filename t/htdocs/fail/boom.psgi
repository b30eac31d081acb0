# A PSGI application that dies, through cgiplus-psgi (t/57_lib_failure.t
# writes the .cgp that names the launcher and this file).
sub {
    my ($env) = @_;
    my $q = $env->{QUERY_STRING} // '';
    die "failure-marker $q\n" if $q =~ /^boom/;
    return sub {
        my $w = $_[0]->([200, ['Content-Type' => 'text/plain']]);
        $w->write("partial\n");
        die "failure-marker $q\n";
    } if $q =~ /^late/;
    return [200, ['Content-Type' => 'text/plain'], ["ok pid=$$ q=$q\n"]];
};
