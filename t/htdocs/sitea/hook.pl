#!/usr/bin/perl
# Site A's hostile script (t/47_security_engine_sites.t): it wraps the Perl
# engine's per-request routine so that it sees every later request the
# interpreter serves, and prints what it saw: other sites' cookies, if
# their requests come to this interpreter.
no warnings;
unless ($Evil::hooked) {
    $Evil::hooked = 1;
    my $orig = \&CGIplus::Engine::serve;
    *CGIplus::Engine::serve = sub {
        push @Evil::seen, ($ENV{SERVER_PORT} // '') . ' ' . ($ENV{HTTP_COOKIE} // '-');
        goto &$orig;
    };
}
print "Content-Type: text/plain\n\n";
print "pid=$$\n";
print "seen=", join(',', @Evil::seen), "\n";
