#!/usr/bin/perl
# Prints case N (the query string) of t/39_cgi_diff_fuzz.t byte for byte:
# the test writes cases/N, whose first line lists the sizes of the writes
# (each flushed), the rest the output. "@SELF@" in it becomes this
# script's URL directory (a Location back into the same scope). Persistent
# through CGIplus's loop; on the Perl engine (which runs it per request)
# and as plain CGI, once.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/../../../lib/perl";
use CGIplus;

sub emit {
    binmode STDOUT;
    my $q = $ENV{QUERY_STRING} // '';
    (my $dir = $ENV{SCRIPT_FILENAME} // '') =~ s{[^/]*\z}{};
    my ($sizes, $out) = ('', "Content-Type: text/plain\n\nno such case\n");
    if ($q =~ /\A[0-9]{1,5}\z/ && open my $fh, '<:raw', "${dir}cases/$q") {
        local $/;
        ($sizes, $out) = split /\n/, <$fh>, 2;
    }
    (my $self = $ENV{SCRIPT_NAME} // '') =~ s{[^/]*\z}{};
    $out =~ s/\@SELF\@/$self/g;
    for my $n (split ' ', $sizes) {
        print substr($out, 0, $n, '');
        STDOUT->flush;
    }
    print $out;
}

if (defined &CGIplus::Engine::init_count) {
    emit();
} else {
    while (CGIplus::accept()) {
        emit();
        CGIplus::finish();
    }
}
