# TapChecks: prints a list of [description, passed] checks as TAP and
# exits 1 if any failed (the docs and packaging checks of t/unit/).
package TapChecks;
use strict;
use warnings;
use Exporter 'import';
our @EXPORT_OK = qw(report slurp);

sub slurp { my $f = shift; open my $fh, '<', $f or die "$f: $!\n"; local $/; <$fh> }

sub report {
    my @checks = @_;
    print '1..', scalar(@checks), "\n";
    my ($n, $fail) = (0, 0);
    for my $c (@checks) {
        $n++;
        print(($c->[1] ? 'ok' : do { $fail++; 'not ok' }), " $n - $c->[0]\n");
    }
    exit($fail ? 1 : 0);
}

1;
