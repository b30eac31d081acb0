package FreePort;
# A port nobody listens on, for a test's private httpd. Fixed offsets from
# the suite's port ran into the suite's own virtual hosts once their number
# grew. Under t/run-apache-test the port comes from the run's own range
# (CGIPLUS_TEST_FREE_PORTS, LO-HI): the shards of a run each have one, so
# two never choose the same port, and it lies below the kernel's ephemeral
# range, so no client's connection takes it before httpd binds it. Without
# a range (t/TEST.PL run by hand), the kernel chooses.
use strict;
use warnings;
use Exporter qw(import);
use IO::Socket::INET;

our @EXPORT_OK = qw(free_port free_ports);

my ($lo, $hi) = ($ENV{CGIPLUS_TEST_FREE_PORTS} // '') =~ /^(\d+)-(\d+)$/;
# The next port to try: from a random point, so that a test does not start
# where the one before it left its httpds; then onwards, so that a test's
# successive calls return different ports even before it binds them.
my $next = defined $lo ? $lo + int(rand($hi - $lo + 1)) : 0;

# N different ports: each stays bound until all are chosen.
sub free_ports {
    my ($n) = @_;
    my @s;
    if (!defined $lo) {
        @s = map {
            IO::Socket::INET->new(LocalAddr => '127.0.0.1', LocalPort => 0, Proto => 'tcp',
                                  Listen => 1) or die "free_port: $!\n"
        } 1 .. $n;
        return map { $_->sockport } @s;
    }
    for (my $tried = 0; @s < $n && $tried <= $hi - $lo; $tried++) {
        my $p = $next;
        $next = $next == $hi ? $lo : $next + 1;
        # no SO_REUSEADDR: a port left in TIME_WAIT is passed over too
        my $s = IO::Socket::INET->new(LocalAddr => '127.0.0.1', LocalPort => $p, Proto => 'tcp',
                                      Listen => 1);
        push @s, $s if $s;
    }
    die "free_port: fewer than $n free ports in $lo-$hi\n" if @s < $n;
    return map { $_->sockport } @s;
}

sub free_port { return (free_ports(1))[0] }

1;
