package HeldGet;
# A request held in the background (its script keeps the only worker busy
# until the test lets it go) while the test sends others: curl in a child
# process, its answer read when it ends.
use strict;
use warnings;
use POSIX ();
use Time::HiRes qw(sleep);
use AppTest qw(curl);
use Exporter 'import';
our @EXPORT_OK = qw(held_get held_answer);

# GETs $url (120 s at most) from a child; returns, once the file $started
# exists (the script runs; 60 s at most), the handle held_answer reads.
sub held_get {
    my ($url, $started) = @_;
    my $pid = open(my $fh, '-|') // die "fork: $!";
    if (!$pid) {
        my ($c, undef, $b) = curl('--max-time', '120', $url);
        print "$c $b";
        close STDOUT;
        POSIX::_exit(0); # not the test's END blocks
    }
    for (1 .. 600) { last if -e $started; sleep 0.1 }
    return $fh;
}

# "code body" of a held request, once it has ended.
sub held_answer {
    my ($fh) = @_;
    my $answer = do { local $/; <$fh> } // '';
    close $fh;
    return $answer;
}

1;
