package FreePort;
# A port nobody listens on, for a test's private httpd. Fixed offsets from
# the suite's port ran into the suite's own virtual hosts once their number
# grew; the kernel's choice of a free port cannot.
use strict;
use warnings;
use Exporter qw(import);
use IO::Socket::INET;

our @EXPORT_OK = qw(free_port free_ports);

# N different ports: each stays bound until all are chosen.
sub free_ports {
    my ($n) = @_;
    my @s = map {
        IO::Socket::INET->new(LocalAddr => '127.0.0.1', LocalPort => 0, Proto => 'tcp',
                              Listen => 1) or die "free_port: $!\n"
    } 1 .. $n;
    return map { $_->sockport } @s;
}

sub free_port { return (free_ports(1))[0] }

1;
