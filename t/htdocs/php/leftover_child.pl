#!/usr/bin/perl
# What leftover_inject.php leaves behind: it finds the FastCGI connection
# among its inherited descriptors (a connected socket), waits for the next
# request to come in on it, and answers that request at once with records
# of id 1 (t/59_php_leftover_inject.t). ARGV[0]: its log.
use strict;
use warnings;
use IO::Select;

open my $log, '>>', $ARGV[0] or exit 1;
$log->autoflush(1);
my $conn;
for my $fd (3 .. 64) {
    open(my $fh, '+<&=', $fd) or next;
    if (defined getpeername($fh)) {
        $conn = $fh;
        last;
    }
}
print $log ($conn ? "holding the connection\n" : "no connection found\n");
exit 0 unless $conn;
# the request that started us may still be in flight on it (a loaded
# machine): its own records are not "the next request"
sleep 1;
exit 0 unless IO::Select->new($conn)->can_read(60);
sub rec {
    my ($type, $c) = @_;
    my $pad = (8 - length($c) % 8) % 8;
    return pack('CCnnCC', 1, $type, 1, length $c, $pad, 0) . $c . ("\0" x $pad);
}
# said first: a worker stopped as broken takes its process group along
print $log "answered\n";
syswrite $conn, rec(6, "Content-Type: text/plain\r\n\r\nINJECTED by a leftover process\n")
    . rec(6, '') . rec(3, pack('NCCCC', 0, 0, 0, 0, 0));
