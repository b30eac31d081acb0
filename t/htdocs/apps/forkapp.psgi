# t/16_psgi_fork.t: a PSGI application whose request forks. ?fork: the
# child sleeps and exits, as a well-behaved one does; ?forkret: the child
# returns a response of its own into the server's loop (a bug in the
# application), which writes it where the worker's output goes while the
# worker has no request.
my $app = sub {
    my $env = shift;
    my $q = $env->{QUERY_STRING} // '';
    if ($q eq 'fork' || $q eq 'forkret') {
        my $pid = fork;
        if (defined $pid && $pid == 0) {
            select undef, undef, undef, 0.5;
            exit 0 if $q eq 'fork';
            return [200, ['Content-Type' => 'text/plain'], ["child answer pid $$\n"]];
        }
    }
    return [200, ['Content-Type' => 'text/plain'], ["answer to $q pid $$\n"]];
};
