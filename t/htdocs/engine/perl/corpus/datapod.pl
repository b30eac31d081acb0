#!/usr/bin/perl
# DATA read to its end: under perl that runs past a later __END__ into the
# POD after it.
print "Content-Type: text/plain\n\n";
print while <DATA>;
__DATA__
data line
__END__

=head1 NAME

datapod.pl - a corpus script

=cut
