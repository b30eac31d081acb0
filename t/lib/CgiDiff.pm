package CgiDiff;
# The comparison of t/39_cgi_diff_fuzz.t, t/39_cgi_body_diff.t and
# t/59_fcgid_diff_fuzz.t: a
# response as compared ({status, headers => [[name, value]...], body}:
# the status line as sent, the headers but Date and the framing, each
# with the scope's URL prefix written PREFIX) and the differences of two,
# as lines to print.
use strict;
use warnings;
use Exporter 'import';
our @EXPORT_OK = qw(show compared differences);

# Content-Length and Transfer-Encoding: httpd picks them from timing.
my %framing = map { $_ => 1 } qw(date content-length transfer-encoding);

sub show { my $s = shift; $s =~ s/([^\x20-\x7e])/sprintf '\\x%02x', ord $1/ge; $s }

# compared({status_line, headers, body}, prefix)
sub compared {
    my ($r, $prefix) = @_;
    my @h = map { [$_->[0], $_->[1] // '(none)'] } grep { !$framing{lc $_->[0]} } @{ $r->{headers} };
    for my $h (@h) { s{\Q$prefix/}{PREFIX/}g for @$h }
    (my $b = $r->{body}) =~ s{\Q$prefix/}{PREFIX/}g;
    return { status => $r->{status_line}, headers => \@h, body => $b };
}

# differences(got, want[, the peer's name: mod_cgid])
sub differences {
    my ($got, $want, $peer) = @_;
    $peer //= 'mod_cgid';
    my @d;
    push @d, "status line: got '" . show($got->{status}) . "', $peer '" . show($want->{status}) . "'"
        if $got->{status} ne $want->{status};
    my $gh = join "\n", map { show("$_->[0]: $_->[1]") } @{ $got->{headers} };
    my $wh = join "\n", map { show("$_->[0]: $_->[1]") } @{ $want->{headers} };
    push @d, "headers:\n  got:\n    " . join("\n    ", split /\n/, $gh)
        . "\n  $peer:\n    " . join("\n    ", split /\n/, $wh) if $gh ne $wh;
    if ($got->{body} ne $want->{body}) {
        my ($g, $w) = ($got->{body}, $want->{body});
        my $at = 0;
        $at++ while $at < length $g && $at < length $w && substr($g, $at, 1) eq substr($w, $at, 1);
        push @d, sprintf "body: got %d bytes, %s %d; first difference at %d: got '%s', %s '%s'",
            length $g, $peer, length $w, $at, show(substr $g, $at, 40), $peer, show(substr $w, $at, 40);
    }
    return @d;
}

1;
