#!/usr/bin/perl
# The body read as UTF-8 text: binmode STDIN with a layer, then <STDIN>.
my $r = binmode(STDIN, ':encoding(UTF-8)') ? 'ok' : "failed: $!";
my $body = do { local $/; <STDIN> } // '';
print "Content-Type: text/plain\n\nbinmode $r; ", length($body), " characters; eof ", (eof(STDIN) ? 1 : 0),
      "; layers: ", join(',', PerlIO::get_layers(STDIN)), "\n";
