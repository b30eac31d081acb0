package Plack::Handler::CGIplus;
# Plack::Handler::CGIplus: runs a PSGI application as a persistent CGIplus
# worker of mod_cgiplus (docs/APPS.md); as plain CGI it serves one request,
# as Plack::Handler::CGI does. POD at the end.
use strict;
use warnings;
use parent 'Plack::Handler::CGI';
use CGIplus ();
use HTTP::Status ();

our $VERSION = '0'; # make install writes configure.ac's version here

# The runner's markers are the worker's, not the application's.
my @HIDDEN = qw(CGIPLUSEOF CGIPLUSESC CGIPLUSEOT CGIPLUSIN);

sub new {
    my ($class, %args) = @_;
    return bless {%args}, $class;
}

sub run {
    my ($self, $app) = @_;
    CGIplus::set_idle($self->{idle}, $self->{idle_every}) if $self->{idle};
    # Responses go out on a private copy of descriptor 1; the application's
    # STDOUT (and its children's) is the error log, as a PSGI server's
    # stdout or under Plack::Handler::FCGI. Under Plack::Handler::CGI a
    # debug print became the response's header (502), and one between
    # requests broke the protocol.
    $self->{out} = CGIplus::private_stdout();
    unless ($self->{out}) {
        print STDERR "CGIPLUS3156: Plack::Handler::CGIplus: cannot copy descriptor 1 ($!): what the "
            . "application prints on STDOUT goes into its responses\n";
        $self->{out} = \*STDOUT;
    }
    my $out = $self->{out};
    # And STDIN is /dev/null, psgi.input a private copy of the bodies'
    # pipe: a program the application runs that reads its stdin got that
    # pipe, which never ends.
    CGIplus::private_stdin()
        or print STDERR "CGIPLUS3158: Plack::Handler::CGIplus: cannot copy descriptor 0 ($!): a "
            . "program the application runs reads the requests' bodies as its stdin\n";
    while (CGIplus::accept()) {
        # An application that dies answers 500 (if nothing was sent yet)
        # and the worker goes on, as a PSGI server does. Once the header
        # went out the response can only be cut: the worker exits without
        # the sentinel, which would deliver a truncated body as complete.
        unless (eval { $self->SUPER::run($app); 1 }) {
            my $err = $@;
            print STDERR "CGIPLUS3151: Plack::Handler::CGIplus: the application died: $err";
            if ($self->{sent} && CGIplus::is_persistent()) {
                $out->flush;
                print STDERR "CGIPLUS3251: Plack::Handler::CGIplus: the application died after its "
                    . "response had started: the worker exits without ending the response, so the "
                    . "client sees it cut (pid $$)\n";
                require POSIX;
                POSIX::_exit(70);
            }
            print $out "Status: 500\r\nContent-Type: text/plain\r\n\r\nInternal Server Error\n"
                unless $self->{sent};
        }
        # psgix.harakiri (Plack::Middleware::SizeLimit, as under Starman):
        # the runner replaces this worker once its response is done.
        # RETIRE, not an exit after the sentinel, which would leave a
        # moment when the dying worker looks free and takes a request.
        my $env = delete $self->{env};
        if ($env && $env->{'psgix.harakiri.commit'} && CGIplus::is_persistent()) {
            my $ans = CGIplus::callout('RETIRE') // '';
            print STDERR "CGIPLUS3300: Plack::Handler::CGIplus: psgix.harakiri.commit: "
                . ($ans =~ /\A200/ ? 'the worker is replaced after this request'
                                   : "the runner refused RETIRE ($ans)") . " (pid $$)\n";
        }
        $self->{sent} = 0;
        CGIplus::finish();
    }
    return;
}

sub setup_env {
    my ($self, $override) = @_;
    # Plack::Handler::CGI copies %ENV, which in a persistent worker also
    # holds what the application put there in earlier requests: a
    # variable it set once ($ENV{X} = ...) was in every later request's
    # environment. The copy is of the request's own environment, as a CGI
    # process would have it (Starman's has no process variables at all).
    # (The glob, not %ENV's contents: assigning those calls setenv for
    # each variable and again to put them back, 49 us a request.)
    local *ENV = CGIplus::request_env();
    my $env = $self->SUPER::setup_env({
        'psgi.run_once' => CGIplus::is_persistent() ? 0 : 1,
        'psgix.harakiri' => CGIplus::is_persistent() ? 1 : 0,
        # Plack::Handler::CGI says true, but no event loop runs here: an
        # application that then answers through AnyEvent (Plack::App::Proxy)
        # would leave the request with no response. Starman and
        # Plack::Handler::FCGI say false.
        'psgi.nonblocking' => 0,
        %{ $override || {} },
    });
    $self->{env} = $env;
    delete @{$env}{@HIDDEN};
    # The runner hands the body de-chunked with an exact CONTENT_LENGTH:
    # the client's Transfer-Encoding no longer describes it.
    delete $env->{HTTP_TRANSFER_ENCODING} if ($env->{CONTENT_LENGTH} // '') =~ /\A[0-9]+\z/;
    _raw_slashes($env);
    return $env;
}

# httpd finds the script by the path as a file name, canonicalised, so
# PATH_INFO has repeated slashes merged (even with MergeSlashes Off):
# "/app.psgi//a///b" gave "/a/b", where Starman, and under httpd
# Plack::Handler::FCGI and ::Apache2, give "//a///b" (Plack::Test::Suite's
# "repeated slashes"). They are taken back from REQUEST_URI, the path as
# sent, when it is SCRIPT_NAME and PATH_INFO with more slashes and nothing
# else (a rewrite, dot segments, an encoded slash: httpd's stays).
sub _raw_slashes {
    my ($env) = @_;
    my ($sn, $pi) = ($env->{SCRIPT_NAME} // '', $env->{PATH_INFO} // '');
    return unless $pi =~ m{\A/} && defined $env->{REQUEST_URI};
    my ($raw) = $env->{REQUEST_URI} =~ m{\A(?:[A-Za-z][A-Za-z0-9+.-]*://[^/?#]*)?([^?#]*)};
    return unless defined $raw && $raw =~ m{//};
    $raw =~ s/%([0-9A-Fa-f]{2})/chr hex $1/ge;
    my $script = join '/+', map { quotemeta } split m{/}, $sn, -1;
    return unless $raw =~ m{\A$script(/.*)\z}s;
    my $rest = $1;
    $env->{PATH_INFO} = $rest if $rest ne $pi && ($rest =~ s{/+}{/}gr) eq $pi;
}

# Plack::Handler::CGI's, but for the status line: its own table of reason
# phrases stops at RFC 2616's, so a 308, 418, 429 or 451 went out as
# "Status: 429 " (httpd sent "HTTP/1.1 429 ", with no phrase) and logged
# Perl's "uninitialized value" warning each time. HTTP::Status (Plack's own
# dependency) gives the phrase, as Starman and Plack::Handler::FCGI send it;
# a code it does not know (299, 599) goes without one, as from Starman.
sub _handle_response {
    my ($self, $res) = @_;
    # The CGI header is lines: a CR, LF or NUL in the status or a header
    # (one made of a request's data) would add headers or end the header
    # early and begin the body. PSGI forbids them; the application's error
    # (500, before anything is sent), as cgiplus-wsgi refuses them.
    for (my $i = -1; $i < @{ $res->[1] }; $i++) {
        my $v = $i < 0 ? $res->[0] : $res->[1][$i];
        die "invalid response: a CR, LF or NUL in the status or a header\n" if $v =~ /[\r\n\0]/;
    }
    $self->{sent} = 1;
    my $out = $self->{out} // \*STDOUT;
    $out->autoflush(1);
    binmode $out;
    my $message = HTTP::Status::status_message($res->[0]);
    my $hdrs = "Status: $res->[0]" . (defined $message ? " $message" : '') . "\015\012";
    my $headers = $res->[1];
    while (my ($k, $v) = splice(@$headers, 0, 2)) {
        $hdrs .= "$k: $v\015\012";
    }
    print $out $hdrs, "\015\012";
    my $body = $res->[2];
    return Plack::Handler::CGIplus::Writer->new($out) unless defined $body;
    if (ref $body eq 'ARRAY') {
        for my $line (@$body) {
            print $out $line if length $line;
        }
        return;
    }
    local $/ = \65536 unless ref $/;
    while (defined(my $line = $body->getline)) {
        print $out $line if length $line;
    }
    $body->close;
    return;
}

# A delayed response's writer: Plack::Handler::CGI's prints to STDOUT.
package Plack::Handler::CGIplus::Writer;

sub new   { my ($class, $out) = @_; return bless { out => $out }, $class }
sub write { my ($self, $data) = @_; print { $self->{out} } $data; return }
sub close { return }

1;

__END__

=head1 NAME

Plack::Handler::CGIplus - run any PSGI application persistently under mod_cgiplus

=head1 SYNOPSIS

    # app.psgi, served by httpd with AddHandler cgiplus-script .psgi
    #!/usr/bin/env cgiplus-psgi
    my $app = sub { [200, ['Content-Type' => 'text/plain'], ["hello\n"]] };

    # or by hand, in a script of your own
    use Plack::Handler::CGIplus;
    Plack::Handler::CGIplus->new->run($app);

=head1 DESCRIPTION

The worker loads the application once and serves request after request
(C<psgi.run_once> false, C<psgi.multiprocess> true, C<psgi.streaming>
true, C<psgix.harakiri> true: an application that sets
C<psgix.harakiri.commit> has its worker replaced once the response is done,
3300). C<psgi.input> ends after C<CONTENT_LENGTH> bytes; a chunked upload
arrives de-chunked with its exact length. It is a stream (no
C<psgix.input.buffered>): C<seek> fails with C<ESPIPE>, as on a pipe.
C<PATH_INFO> keeps repeated slashes as sent (httpd merges them; they are
taken back from C<REQUEST_URI>). The status line carries HTTP::Status's reason phrase; a CR, LF or NUL in the
status or a header is the application's error (500). The responses go out on a
private copy of descriptor 1: what the application prints on STDOUT goes
to the error log (3156 if the copy could not be made). An application that dies gets a
500 response (if it had sent nothing yet) and a line on stderr (3151); the
worker serves the next request. One that dies after its response started
ends the worker without ending the response (3251): the client sees it
cut, never a truncated body delivered as complete. Run as plain CGI (no C<CGIPLUSEOF>), it
serves one request.

Options of C<new>: C<idle> (a code reference called between requests and
every C<idle_every> seconds while waiting; C<cgiplus-psgi --reload> uses it).

=cut
