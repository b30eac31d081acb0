package AppTest;
# Helpers of the application tests (t/15_wsgi_flask.t, t/16_psgi.t): write
# the launcher files with the build tree's path, and run curl.
use strict;
use warnings;
use Exporter qw(import);
use Apache::Test ();

our @EXPORT_OK = qw(write_file curl url lines_of);

my $vars = Apache::Test::config()->{vars};

sub write_file {
    my ($file, $text, $mode) = @_;
    open my $fh, '>', $file or die "$file: $!";
    print $fh $text;
    close $fh;
    chmod $mode // 0755, $file;
}

sub url { "http://127.0.0.1:$vars->{port}$_[0]" }

# A file's lines, without their ends (none if it is not there yet).
sub lines_of {
    my ($f) = @_;
    open my $fh, '<', $f or return ();
    return map { chomp; $_ } <$fh>;
}

# curl ARGS...: (HTTP status, headers as lower-case name => value, body).
sub curl {
    my @args = @_;
    open my $fh, '-|', 'curl', '-s', '-S', '--max-time', '20', '-D', '-', @args or die "curl: $!";
    local $/;
    my $out = <$fh> // '';
    close $fh;
    my ($head, $body) = split /\r\n\r\n/, $out, 2;
    # a 100 Continue, or the redirects curl -L followed, come first
    ($head, $body) = split /\r\n\r\n/, $body, 2 while ($body // '') =~ m{^HTTP/\S+ \d{3}};
    my ($code) = ($head // '') =~ m{^HTTP/\S+ (\d{3})};
    my %h;
    for (split /\r\n/, $head // '') { $h{lc $1} = $2 if /^([^:]+):\s*(.*)$/ }
    return ($code // 0, \%h, $body // '');
}

1;
