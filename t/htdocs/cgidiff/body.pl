#!/usr/bin/perl
# What a script reads of its request body, for t/39_cgi_body_diff.t. The
# query is READ.OUT: READ how it reads stdin ("all": CONTENT_LENGTH bytes
# in one read loop of 1 MiB reads, "byte": one byte a read, "odd": reads of
# 1, 7, 4093, 65537 bytes in turn, "none", "half": half of
# CONTENT_LENGTH, "eof": to end of file whatever the length, "past":
# CONTENT_LENGTH bytes, then one read more, which must see end of file);
# OUT how it answers ("n": at once, "pMS": in 3 pieces MS ms apart, "bN":
# N bytes of a pattern after the report). The report (header X-Read and
# the body's first line): the method, CONTENT_LENGTH, HTTP_TRANSFER_ENCODING
# and length:md5 of what was read. Persistent through CGIplus's loop; on
# the Perl engine and as plain CGI, once.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/../../../lib/perl";
use CGIplus;
use Digest::MD5 ();

sub answer {
    binmode STDIN;
    binmode STDOUT;
    my ($how, $out) = split /\./, $ENV{QUERY_STRING} // '', 2;
    $how //= '';
    $out //= 'n';
    my $cl = $ENV{CONTENT_LENGTH};
    my $want = defined $cl && $cl =~ /\A[0-9]+\z/ ? $cl + 0 : 0;
    $want = int($want / 2) if $how eq 'half';
    my ($b, $after) = ('', '-');
    if ($how eq 'eof') {
        while (1) {
            my $n = read STDIN, $b, 1 << 20, length $b;
            last unless $n;
        }
    } elsif ($how ne 'none') {
        my @sizes = $how eq 'byte' ? (1) : $how eq 'odd' ? (1, 7, 4093, 65537) : (1 << 20);
        my $i = 0;
        while (length $b < $want) {
            my $s = $sizes[$i++ % @sizes];
            $s = $want - length $b if $s > $want - length $b;
            my $n = read STDIN, $b, $s, length $b;
            last unless $n;
        }
        if ($how eq 'past') {
            my $n = read STDIN, my $more, 4096;
            $after = defined $n ? $n : "error $!";
        }
    }
    my $report = "$ENV{REQUEST_METHOD} $how cl=" . ($cl // '(none)') . ' te=' . ($ENV{HTTP_TRANSFER_ENCODING} // '(none)')
        . ' read=' . length($b) . ':' . Digest::MD5::md5_hex($b) . " after=$after";
    print "Content-Type: text/plain\nX-Read: $report\n\n$report\n";
    if ($out =~ /\Ap(\d+)\z/) {
        for my $n (1 .. 3) {
            print "piece $n\n";
            STDOUT->flush;
            select undef, undef, undef, $1 / 1000 if $n < 3;
        }
    } elsif ($out =~ /\Ab(\d+)\z/) {
        my $len = $1;
        my $block = join '', map { chr(($_ * 7 + $len) % 256) } 0 .. 65535;
        for (my $o = 0; $o < $len; $o += 65536) {
            print $len - $o < 65536 ? substr($block, 0, $len - $o) : $block;
        }
    }
}

if (defined &CGIplus::Engine::init_count) {
    answer();
} else {
    while (CGIplus::accept()) {
        answer();
        CGIplus::finish();
    }
}
