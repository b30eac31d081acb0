package CGIplus;
# CGIplus.pm: the Perl script library of mod_cgiplus (core modules only).
# The protocol is docs/PROTOCOL.md, part 2. POD at the end.
use strict;
use warnings;
use Exporter qw(import);
use IO::Handle ();
use Errno ();

our $VERSION = '0'; # make install writes configure.ac's version here
our @EXPORT_OK = qw(cgiplus_accept cgiplus_finish cgiplus_callout
                    cgiplus_struct_mode cgiplus_is_persistent);

# Caps, as in the C library (lib/cgp_records.h).
use constant { MAX_SYNC => 32, MAX_LINE => 1024 + 1 + 65536,
               MAX_BLOCK => 2 * 1024 * 1024, MAX_ANSWER => 8192 };
my %MARKER = map { $_ => 1 } qw(CGIPLUSEOF CGIPLUSESC CGIPLUSEOT);

# The library's state: one per process, lives for the process.
my %st = (init => 0, persistent => 0, in_request => 0, chan => undef,
          buf => '', eofline => '', ready => '', had => 0, esc => '', eot => '', base => {},
          names => [], req => {}, body_fh => undef, idle => undef, idle_every => 1,
          out => undef, in_fh => undef);

sub _log {
    my ($id, $msg) = @_;
    print STDERR "CGIPLUS$id: CGIplus.pm: $msg\n";
}

sub is_persistent {
    return $st{persistent} if $st{init};
    return (defined $ENV{CGIPLUSEOF} && length $ENV{CGIPLUSEOF}) ? 1 : 0;
}

# Sets up persistent mode once: channel, sentinels, the base environment.
sub _setup {
    return 1 if $st{chan};
    $st{eofline} = "$ENV{CGIPLUSEOF}\n";
    $st{ready} = "$ENV{CGIPLUSEOF}+\n";    # the ready line (docs/PROTOCOL.md)
    $st{esc} = $ENV{CGIPLUSESC} // '';
    $st{eot} = $ENV{CGIPLUSEOT} // '';
    $st{base} = { %ENV };
    my $path = $ENV{CGIPLUSIN} // '';
    my $chan;
    if ($path ne '' && $path ne '/dev/fd/3') {
        unless (open $chan, '<:raw', $path) {
            _log(3007, "cannot open CGIPLUSIN $path: $!");
            return 0;
        }
    } else {
        unless (open $chan, '<&=', 3) {
            _log(3009, "CGIPLUSIN descriptor 3 unusable: $!");
            return 0;
        }
        binmode $chan;
    }
    # The body stream: fd 0 (or private_stdin's copy), read with sysread
    # only (no PerlIO buffer).
    if ($st{in_fh}) {
        $st{body_fh} = $st{in_fh};
    } elsif (!open $st{body_fh}, '<&=', 0) {
        _log(3011, "descriptor 0 unusable: $!");
        return 0;
    }
    $st{chan} = $chan;
    return 1;
}

# Reads a line from CGIPLUSIN without its newline. Returns the line, undef
# at EOF before any byte; dies "trunc" at EOF inside the line, "long" over
# $max (the whole line is consumed first, so the stream stays in step).
sub _readline {
    my ($max) = @_;
    my ($line, $over, $any) = ('', 0, 0);
    for (;;) {
        if ($st{buf} eq '') {
            my $n = sysread $st{chan}, $st{buf}, 4096;
            if (!defined $n) {
                next if $!{EINTR};
                die "read:$!\n";
            }
            if ($n == 0) {
                return undef unless $any;
                die "trunc\n";
            }
        }
        $any = 1;
        my $i = index $st{buf}, "\n";
        my $piece = $i < 0 ? $st{buf} : substr($st{buf}, 0, $i);
        $st{buf} = $i < 0 ? '' : substr($st{buf}, $i + 1);
        unless ($over) {
            if (length($line) + length($piece) > $max) {
                ($over, $line) = (1, '');
            } else {
                $line .= $piece;
            }
        }
        if ($i >= 0) {
            die "long\n" if $over;
            return $line;
        }
    }
}

# Reads exactly $n bytes, never more; dies "trunc" at EOF.
sub _read_exact {
    my ($n) = @_;
    my $out = substr $st{buf}, 0, $n;
    $st{buf} = length($st{buf}) > $n ? substr($st{buf}, $n) : '';
    while (length $out < $n) {
        my $got = sysread $st{chan}, $out, $n - length $out, length $out;
        if (!defined $got) {
            next if $!{EINTR};
            die "read:$!\n";
        }
        die "trunc\n" if $got == 0;
    }
    return $out;
}

sub _pair {
    my ($e) = @_;
    my $i = index $e, '=';
    die "record\n" if $i <= 0 || index($e, "\0") >= 0;
    return (substr($e, 0, $i), substr($e, $i + 1));
}

# One request as a list of [name, value]; undef at EOF; dies with a reason.
# mod_ssl's PEM certificates (SSLOptions +ExportCertData; REDIRECT_ copies
# after an internal redirect) come in record mode with their line ends as
# spaces (docs/PROTOCOL.md); base64 has no space, so the line ends are put
# back exactly, as mod_cgi passes them.
sub _pem {
    my ($k, $v) = @_;
    return $v unless $k =~ /\A(?:REDIRECT_)*SSL_(?:CLIENT|SERVER)_CERT(?:_CHAIN_[0-9]+)?\z/ &&
        $v =~ /\A-----BEGIN CERTIFICATE----- ([A-Za-z0-9+\/= ]+) -----END CERTIFICATE-----( ?)\z/;
    my ($b64, $end) = ($1, $2);
    $b64 =~ tr/ /\n/;
    return "-----BEGIN CERTIFICATE-----\n$b64\n-----END CERTIFICATE-----" . ($end eq ' ' ? "\n" : '');
}

sub _read_request {
    my $sync = eval { _readline(MAX_SYNC) };
    if ($@) {
        die($@ eq "long\n" ? "sync\n" : $@);
    }
    return undef unless defined $sync;
    my @pairs;
    if ($sync eq '!') {
        my $total = 0;
        for (;;) {
            my $line = _readline(MAX_LINE);
            die "trunc\n" unless defined $line;
            last if $line eq '';
            $total += length($line) + 1;
            die "size\n" if $total > MAX_BLOCK;
            push @pairs, [_pair($line)];
        }
        $_->[0] =~ /\A(?:REDIRECT_)*SSL_/ and $_->[1] = _pem($_->[0], $_->[1]) for @pairs;
    } elsif ($sync =~ /\A!!([0-9]+)\z/) {
        my $n = $1;
        die "sync\n" if length($n) > 9 || $n < 2 || $n > MAX_BLOCK;
        my $block = _read_exact($n);
        my $off = 0;
        for (;;) {
            die "record\n" if $n - $off < 2;
            my $len = unpack 'n', substr($block, $off, 2);
            $off += 2;
            last if $len == 0;
            die "record\n" if $len > $n - $off;
            push @pairs, [_pair(substr($block, $off, $len))];
            $off += $len;
        }
        die "record\n" if $off != $n;
    } else {
        die "sync\n";
    }
    return \@pairs;
}

my %WHY = (
    sync   => [3001, 'bad sync record (neither "!" nor "!!N")', Errno::EPROTO],
    record => [3002, 'malformed variable record', Errno::EPROTO],
    trunc  => [3003, 'request channel ended inside a request', Errno::EPROTO],
    size   => [3004, 'request over the size caps', Errno::EMSGSIZE],
    long   => [3004, 'request over the size caps', Errno::EMSGSIZE],
);

# Makes %ENV the base environment plus this request's variables.
sub _install {
    my ($pairs) = @_;
    my %new = map { $_->[0] => $_->[1] } @$pairs;
    for my $k (@{ $st{names} }) {
        next if exists $new{$k};
        if (exists $st{base}{$k}) { $ENV{$k} = $st{base}{$k} }
        else { delete $ENV{$k} }
    }
    while (my ($k, $v) = each %new) {
        $ENV{$k} = $v unless defined $ENV{$k} && $ENV{$k} eq $v;
    }
    $st{names} = [keys %new];
    $st{req} = \%new;
}

# The environment a CGI process of this request would have: the worker's
# own as it was at the first accept, plus this request's variables; not
# what the script set in %ENV since (Plack::Handler::CGIplus builds the
# PSGI environment from it). Plain CGI: %ENV.
sub request_env {
    return { %ENV } unless $st{persistent};
    return { %{ $st{base} }, %{ $st{req} } };
}

# Ties STDIN to this request's body: CONTENT_LENGTH bytes, then EOF.
sub _new_stdin {
    my $len = $ENV{CONTENT_LENGTH} // '';
    $len = $len =~ /\A[0-9]+\z/ ? $len + 0 : 0;
    no warnings 'untie';
    untie *STDIN if tied *STDIN;
    tie *STDIN, 'CGIplus::Body', $st{body_fh}, $len;
}

sub accept {
    if (!$st{init}) {
        $st{persistent} = is_persistent();
        $st{init} = 1;
        return 1 unless $st{persistent};   # plain CGI: this process is the request
    } elsif (!$st{persistent}) {
        _out()->flush;
        return 0;
    }
    _setup() or return undef;
    _out()->flush;
    # Nothing more of ours comes before the next record: the server may send
    # it whole (not with an idle hook, which may print while it waits). A
    # failure: the runner is gone, the read sees EOF.
    my $ready = $st{had} && !$st{idle} ? $st{ready} : '';
    if ($st{in_request}) {     # the sentinel and the ready line in one write
        $st{in_request} = 0;
        _write_all($st{eofline} . $ready);
    } elsif ($ready ne '') {
        _write_all($ready);
    }
    $st{had} = 0;
    _wait_request() if $st{idle};
    my $pairs = eval { _read_request() };
    if ($@) {
        my $why = $@;
        chomp $why;
        if ($why =~ /\Aread:(.*)/s) {
            _log(3005, "read from CGIPLUSIN failed: $1");
        } else {
            my $w = $WHY{$why} // [3002, $why, Errno::EPROTO];
            _log($w->[0], $w->[1]);
            $! = $w->[2];
        }
        return undef;
    }
    return 0 unless $pairs;
    _install($pairs);
    _new_stdin();
    # CGI.pm keeps the previous query in globals; CGI::Fast resets them so.
    CGI->_reset_globals if defined &CGI::_reset_globals;
    $st{in_request} = 1;
    $st{had} = 1;
    return 1;
}

# Calls the idle hook until a request's first byte is there: once now,
# then every idle_every seconds. Nothing of a request is buffered yet, so the
# hook may even exec a new program (reexec).
sub _wait_request {
    while ($st{buf} eq '') {
        $st{idle}->();
        my $bits = '';
        vec($bits, fileno($st{chan}), 1) = 1;
        my $n = select(my $ready = $bits, undef, undef, $st{idle_every});
        return if $n && $n > 0;
    }
}

# The request channel's descriptor (undef before the first accept): the
# Perl engine closes it in the children its scripts fork.
sub _chan_fd { return $st{chan} ? fileno($st{chan}) : undef }

# Sets a hook called between requests, and every $every seconds while the
# worker waits for one (persistent only); undef removes it.
sub set_idle {
    my ($hook, $every) = @_;
    $st{idle} = $hook;
    $st{idle_every} = $every // 1;
    return;
}

# Starts this program again in the same process, between requests (from an
# idle hook only): the runner's channels (descriptors 0, 1, 3) stay open,
# so a request the runner has already written waits for the new program.
sub reexec {
    my (@argv) = @_;
    require Fcntl;
    _out()->flush;
    STDERR->flush;
    # private_stdout's copy closes at exec: descriptor 1 is the new
    # program's response channel again.
    open(STDOUT, '>&', $st{out}) or _log(3155, "cannot put the response channel back on descriptor 1: $!")
        if $st{out};
    open(STDIN, '<&', $st{in_fh}) or _log(3157, "cannot put the bodies' pipe back on descriptor 0: $!")
        if $st{in_fh};
    my $fl = fcntl($st{chan}, Fcntl::F_GETFD(), 0);
    fcntl($st{chan}, Fcntl::F_SETFD(), $fl & ~Fcntl::FD_CLOEXEC()) if $fl;
    %ENV = %{ $st{base} };
    exec { $^X } $^X, @argv or _log(3150, "cannot exec $^X: $!");
    return;
}

# The response's handle: STDOUT, or private_stdout's copy of it.
sub _out { return $st{out} // \*STDOUT }

# Moves the bodies to a private copy of descriptor 0 (closed at exec) and
# points descriptor 0, STDIN, at /dev/null, as a PSGI server's (and
# mod_wsgi's) is: the requests' pipe never ends, so a program the script
# runs that reads its stdin (`system 'cat'`, ffmpeg, ssh) waited there
# until the request's timeout and took what body was left, or the next
# request's. Persistent workers only (plain CGI's stdin ends with its
# body); true, or false (with $!) with descriptor 0 left as it was.
sub private_stdin {
    return 1 if !is_persistent() || $st{in_fh};
    open(my $in, '<&', \*STDIN) or return 0;
    unless (open(STDIN, '<', '/dev/null')) {
        my $err = $!;
        close $in;
        $! = $err;
        return 0;
    }
    $st{in_fh} = $in;
    $st{body_fh} = $in if $st{chan};    # (else _setup takes it)
    return 1;
}

# Moves the response to a private copy of descriptor 1 (closed at exec,
# so a program the script starts does not get it) and points descriptor 1,
# STDOUT, at stderr: what the script prints there, or a program it starts,
# goes to the error log instead of into a response (a debug print before
# the header became the header; one between requests broke the protocol),
# as a PSGI server's stdout or Plack::Handler::FCGI's. Returns the
# response's handle, which the script prints its responses to; undef (with
# $!) if descriptor 1 could not be copied, and STDOUT is the response's.
sub private_stdout {
    return $st{out} if $st{out};
    STDOUT->flush;
    open(my $out, '>&', \*STDOUT) or return undef;
    binmode $out;
    $out->autoflush(1);
    unless (open(STDOUT, '>&', \*STDERR)) {
        my $err = $!;
        close $out;
        $! = $err;
        return undef;
    }
    STDOUT->autoflush(1);       # as STDERR: each line in the log when printed
    $st{out} = $out;
    return $out;
}

sub _write_all {
    my ($data) = @_;
    while (length $data) {
        my $n = syswrite _out(), $data;
        if (!defined $n) {
            next if $!{EINTR};
            return 0;
        }
        substr($data, 0, $n) = '';
    }
    return 1;
}

sub finish {
    _out()->flush;
    return unless $st{in_request};
    $st{in_request} = 0;
    _write_all($st{eofline});   # a failure: the runner is gone, accept sees EOF
    return;
}

sub callout {
    my ($req) = @_;
    unless (is_persistent()) {
        $! = Errno::ENOTSUP;
        return undef;
    }
    if (!defined $req || $req eq '' || index($req, "\n") >= 0) {
        $! = Errno::EINVAL;
        return undef;
    }
    _setup() or return undef;
    _out()->flush;
    _write_all("$st{esc}\n$req\n$st{eot}\n") or return undef;
    return '' if $req =~ /\A[!#]/;
    my $ans = eval { _readline(MAX_ANSWER) };
    if ($@ || !defined $ans) {
        $! = ($@ && $@ eq "long\n") ? Errno::EMSGSIZE : Errno::EPROTO;
        return undef;
    }
    $ans =~ s/\r\z//;
    return $ans;
}

sub struct_mode {
    return 1 unless is_persistent();
    my $ans = callout('CGIPLUS: struct');
    return undef unless defined $ans;
    unless ($ans =~ /\A200/) {
        _log(3008, "runner refused struct mode: $ans");
        $! = Errno::EPROTO;
        return undef;
    }
    return 1;
}

{
    no warnings 'once';
    *cgiplus_accept = \&accept;
    *cgiplus_finish = \&finish;
    *cgiplus_callout = \&callout;
    *cgiplus_struct_mode = \&struct_mode;
    *cgiplus_is_persistent = \&is_persistent;
}

# ---------------------------------------------------------------------------
# The tied STDIN of one request: reads fd 0 with sysread, at most
# CONTENT_LENGTH bytes, then reports EOF. Owned by the tie, lives until the
# next request re-ties STDIN.
package CGIplus::Body;

sub TIEHANDLE {
    my ($class, $fh, $len) = @_;
    return bless { fh => $fh, left => $len, pend => '', got => 0 }, $class;
}

# Appends up to $n more body bytes to pend; returns the count (0 at the end).
sub _more {
    my ($self, $n) = @_;
    $n = $self->{left} if $n > $self->{left};
    return 0 if $n <= 0;
    for (;;) {
        my $got = sysread $self->{fh}, $self->{pend}, $n, length $self->{pend};
        if (!defined $got) {
            next if $!{EINTR};
            return undef;
        }
        $self->{left} = 0 if $got == 0;
        $self->{left} -= $got;
        $self->{got} += $got;
        return $got;
    }
}

sub READ {
    my ($self, undef, $len, $off) = @_;
    my $buf = \$_[1];
    $$buf = '' unless defined $$buf;
    $off //= 0;
    $off += length $$buf if $off < 0;
    $$buf .= "\0" x ($off - length $$buf) if $off > length $$buf;
    if ($self->{pend} eq '') {
        my $got = $self->_more($len);
        return undef unless defined $got;
    }
    my $data = substr $self->{pend}, 0, $len;
    substr($self->{pend}, 0, length $data) = '';
    substr($$buf, $off) = $data;
    $self->{read} = 1 if length $data;
    return length $data;
}

sub _one_line {
    my ($self) = @_;
    my $sep = $/;
    if (!defined $sep) {                # slurp
        1 while $self->_more(65536);
        my $all = $self->{pend};
        $self->{pend} = '';
        return length $all ? $all : undef;
    }
    $sep = "\n\n" if $sep eq '';        # paragraph mode, simplified
    $sep = ${$sep} if ref $sep;         # record reads: $/ = \N
    if ($sep =~ /\A[0-9]+\z/ && ref $/) {
        1 while length $self->{pend} < $sep && $self->_more($sep - length $self->{pend});
        my $rec = substr $self->{pend}, 0, $sep;
        substr($self->{pend}, 0, length $rec) = '';
        return length $rec ? $rec : undef;
    }
    for (;;) {
        my $i = index $self->{pend}, $sep;
        if ($i >= 0) {
            my $line = substr $self->{pend}, 0, $i + length $sep;
            substr($self->{pend}, 0, length $line) = '';
            return $line;
        }
        unless ($self->_more(8192)) {
            my $rest = $self->{pend};
            $self->{pend} = '';
            return length $rest ? $rest : undef;
        }
    }
}

sub READLINE {
    my ($self) = @_;
    unless (wantarray) {
        my $l = $self->_one_line;
        # As perl's own handles: a slurp (undef $/) of a handle nothing was
        # read from gives '' once, not undef (an empty body, a GET).
        return '' if !defined $l && !defined $/ && !$self->{read}++;
        $self->{read} = 1 if defined $l;
        return $l;
    }
    my @lines;
    while (defined(my $l = $self->_one_line)) { push @lines, $l }
    return @lines;
}

sub GETC {
    my ($self) = @_;
    my $c;
    return $self->READ($c, 1) ? $c : undef;
}

sub EOF {
    my ($self) = @_;
    return 0 if $self->{pend} ne '';
    return 1 if $self->{left} <= 0;
    my $got = $self->_more(1);
    return !$got;
}

sub CLOSE    { my ($self) = @_; $self->{left} = 0; $self->{pend} = ''; return 1 }
# A script that reopens STDIN itself (`open STDIN, '<', '/dev/null'`
# before it starts a child, as CGI scripts do): the handle is perl's own
# again until the next request ties it; perl puts the new file on
# descriptor 0, which the engine puts back after the run.
sub OPEN {
    my ($self, $mode, @rest) = @_;
    $self->CLOSE;
    no warnings 'untie';
    untie *STDIN;
    return @rest ? CORE::open(*STDIN, $mode, @rest) : CORE::open(*STDIN, $mode);
}
# As on mod_cgi's pipe: seek fails with ESPIPE and the stream reads on,
# tell is the count read so far. Without them a seek (an application that
# rewinds psgi.input without looking at psgix.input.buffered) died with
# "Can't locate object method SEEK".
sub SEEK     { $! = Errno::ESPIPE; return 0 }
sub TELL     { my ($self) = @_; return $self->{got} - length $self->{pend} }
# binmode STDIN, ':encoding(UTF-8)' (':utf8', ':crlf'): a tie has no
# layers, and the script read bytes where a CGI process reads characters.
# Where descriptor 0 holds just what is left of the body, nothing read
# yet (a file: the engine keeps each body in one; /dev/null), STDIN
# becomes perl's own handle on it again, with the layer; the next request
# ties it afresh. On a pipe that goes on past the body (a CGIplus
# worker's) the bytes stay as they come.
sub BINMODE {
    my ($self, @layer) = @_;
    return 1 if !@layer || $layer[0] =~ /\A\s*:(?:raw|bytes)\s*\z/ || $self->{pend} ne '' || $self->{got};
    my @st = stat $self->{fh};
    my $pos = @st && -f _ ? sysseek($self->{fh}, 0, 1) : undef;
    # (no body: the engine's /dev/null)
    return 1 unless defined $pos ? $st[7] - $pos == $self->{left} : @st && -c _ && !$self->{left};
    no warnings 'untie';
    untie *STDIN;
    # (reopened, not an earlier request's end of file; perl keeps STDIN's
    # own PerlIO on descriptor 0, so its layers are taken off too)
    CORE::open(*STDIN, '<&', $self->{fh}) && CORE::binmode(*STDIN) or return 0;
    return CORE::binmode(*STDIN, $layer[0]);
}
sub FILENO   { return 0 }
sub UNTIE    { return }
sub DESTROY  { return }
sub WRITE    { require Carp; Carp::croak('STDIN is read-only') }
sub PRINT    { require Carp; Carp::croak('STDIN is read-only') }
sub PRINTF   { require Carp; Carp::croak('STDIN is read-only') }

# ---------------------------------------------------------------------------
# WebSocket workers (docs/PROTOCOL.md part 2, "WebSocket workers"): the
# records of the channel on descriptor 3 (CGIPLUSWS). One object per
# process, for its life.
package CGIplus::WebSocket;

use constant { W_OPEN => 1, W_MESSAGE => 2, W_CLOSED => 3, W_HELLO => 16,
               W_ACCEPT => 17, W_REFUSE => 18, W_SEND => 19, W_BROADCAST => 20,
               W_CLOSE => 21, F_BINARY => 1 };

sub new {
    my ($class) = @_;
    my $self = bless { fh => undef, buf => '',
                       max => ($ENV{CGIPLUSWS_MAX_MESSAGE} // 16777216) }, $class;
    if (($ENV{CGIPLUSWS} // '') eq '3') {
        open($self->{fh}, '+<&=', 3) or die "CGIplus::WebSocket: descriptor 3: $!\n";
        binmode $self->{fh};
        $self->_write(W_HELLO, 0, 0, pack('nn', 1, 0));
    }
    return $self;
}

# True in a WebSocket pool.
sub enabled { return defined $_[0]{fh} }

sub _write {
    my ($self, $type, $flags, $conn, $pl) = @_;
    my $data = pack('CCnNN', $type, $flags, 0, $conn, length $pl) . $pl;
    while (length $data) {
        my $n = syswrite($self->{fh}, $data);
        if (!defined $n) {
            next if $!{EINTR};
            return undef;
        }
        substr($data, 0, $n, '');
    }
    return 1;
}

sub _read {
    my ($self, $n) = @_;
    while (length($self->{buf}) < $n) {
        my $got = sysread($self->{fh}, $self->{buf}, 65536 > $n ? 65536 : $n,
                          length $self->{buf});
        if (!defined $got) {
            next if $!{EINTR};
            return undef;
        }
        return undef unless $got;
    }
    return substr($self->{buf}, 0, $n, '');
}

# The next event, a hash: type 'open' (env: the upgrade's CGI variables),
# 'message' (data: the message's bytes, binary: 1 for a binary one; text is
# UTF-8) or 'close' (code, reason); conn: the connection's id. undef when
# the runner closed the channel (the worker exits). Outside a WebSocket
# pool, answers each plain request 426 and returns undef at the end.
sub next_event {
    my ($self) = @_;
    unless ($self->{fh}) {
        while (CGIplus::accept()) {
            print "Status: 426 Upgrade Required\r\nUpgrade: websocket\r\n",
                  "Connection: Upgrade\r\nContent-Type: text/plain\r\n\r\n",
                  "This script speaks WebSocket only.\n";
            CGIplus::finish();
        }
        return undef;
    }
    while (1) {
        my $hdr = $self->_read(12) // return undef;
        my ($type, $flags, undef, $conn, $len) = unpack('CCnNN', $hdr);
        die "CGIplus::WebSocket: a record of $len bytes\n" if $len > $self->{max} + 1114112;
        my $pl = $len ? ($self->_read($len) // return undef) : '';
        if ($type == W_OPEN) {
            my (%env, $off);
            $off = 0;
            while ($off < length $pl) {
                my ($nl, $vl) = unpack('nN', substr($pl, $off, 6));
                $env{substr($pl, $off + 6, $nl)} = substr($pl, $off + 6 + $nl, $vl);
                $off += 6 + $nl + $vl;
            }
            return { type => 'open', conn => $conn, env => \%env };
        }
        if ($type == W_MESSAGE) {
            return { type => 'message', conn => $conn, data => $pl,
                     binary => ($flags & F_BINARY) ? 1 : 0 };
        }
        if ($type == W_CLOSED) {
            return { type => 'close', conn => $conn, code => unpack('n', $pl),
                     reason => substr($pl, 2) };
        }
        CGIplus::_log(3401, "unknown WebSocket record type $type (ignored)");
    }
}

# Takes the connection of an 'open'; $protocol: one the client offered.
sub accept {
    my ($self, $conn, $protocol) = @_;
    return $self->_write(W_ACCEPT, 0, $conn, $protocol // '');
}

# Answers an 'open' with an HTTP response: status, [name, value, ...], body.
# Past the runner's caps (include/cgp_wsr.h), which would stop the worker:
# nothing is sent, undef with $! EINVAL and the reason in $@.
sub refuse {
    my ($self, $conn, $status, $headers, $body) = @_;
    my @h = @{ $headers // [] };
    $body //= '';
    utf8::encode($body) if utf8::is_utf8($body);
    my $why = !defined $status || $status !~ /\A\d+\z/ || $status < 200 || $status > 599
              ? "status is not 200-599"
              : @h % 2 ? "headers are not name, value pairs"
              : @h / 2 > 64 ? "more than 64 headers" : undef;
    my $pl = $why ? '' : pack('nn', $status, @h / 2);
    for (my $i = 0; !$why && $i < @h; $i += 2) {
        my ($n, $v) = ($h[$i] // '', $h[$i + 1] // '');
        $why = "header name '$n' is not a token of 1-256 bytes (or is Status)"
            if $n !~ /\A[!#\$%&'*+\-.^_`|~0-9A-Za-z]{1,256}\z/ || lc $n eq 'status';
        $why //= "the value of $n has control characters or is over 8192 bytes"
            if length $v > 8192 || $v =~ /[\x00-\x08\x0a-\x1f\x7f]/;
        $pl .= pack('nn', length $n, length $v) . $n . $v;
    }
    $why //= "more than 1 MiB of headers and body" if length($pl) + length($body) > 1024 * 1024;
    return _invalid("refuse: $why") if $why;
    return $self->_write(W_REFUSE, 0, $conn, $pl . $body);
}

sub _invalid {
    ($@) = @_;
    $! = Errno::EINVAL;
    return undef;
}

# A message to one connection: bytes; $binary 1 for a binary message (text
# must be UTF-8; a character string is encoded).
sub send {
    my ($self, $conn, $data, $binary) = @_;
    utf8::encode($data) if !$binary && utf8::is_utf8($data);
    return $self->_write(W_SEND, $binary ? F_BINARY : 0, $conn, $data);
}

# A message to every connection of the pool (all its workers'), but $except.
sub broadcast {
    my ($self, $data, $binary, $except) = @_;
    utf8::encode($data) if !$binary && utf8::is_utf8($data);
    return $self->_write(W_BROADCAST, $binary ? F_BINARY : 0, $except // 0, $data);
}

# Closes a connection; a code a close frame may not carry (RFC 6455:
# 1000-1003, 1007-1014, 3000-4999) or a reason over 123 bytes sends nothing:
# undef with $! EINVAL and the reason in $@.
sub close {
    my ($self, $conn, $code, $reason) = @_;
    $code //= 1000;
    $reason //= '';
    utf8::encode($reason) if utf8::is_utf8($reason);
    return _invalid("close: code $code may not be sent")
        unless $code =~ /\A\d+\z/ && (($code >= 1000 && $code <= 1003) ||
                                       ($code >= 1007 && $code <= 1014) ||
                                       ($code >= 3000 && $code <= 4999));
    return _invalid("close: the reason is over 123 bytes") if length $reason > 123;
    return $self->_write(W_CLOSE, 0, $conn, pack('n', $code) . $reason);
}

1;

__END__

=head1 NAME

CGIplus - persistent CGIplus scripts for mod_cgiplus, in Perl

=head1 SYNOPSIS

    use lib "/path/to/lib/perl";
    use CGIplus;

    my $count = 0;
    while (CGIplus::accept()) {
        $count++;
        print "Content-Type: text/plain\n\ncount=$count\n";
        CGIplus::finish();
    }

=head1 DESCRIPTION

The same script runs as a persistent CGIplus worker under cgiplus-runner
(C<CGIPLUSEOF> is set) and as a plain CGI program (then C<accept> returns
true once).

=over

=item CGIplus::accept()

Waits for the next request. Returns 1 when one is ready, 0 when there are no
more (plain CGI: after the first; persistent: CGIPLUSIN closed), undef on a
protocol or read error (logged with a CGIPLUS3xxx id; C<$!> set). Ends the
previous response first if C<finish> was not called, then writes the ready
line (the server may send the next request whole). C<%ENV> then holds the
request's variables plus the worker's own environment as it was at the first
call; the previous request's variables are gone (mod_ssl's PEM certificates,
whose line ends record mode sends as spaces, have them back). In persistent mode STDIN is
tied to the request body: C<read>, C<E<lt>STDINE<gt>>, C<getc> and C<eof>
work and report end of file after C<CONTENT_LENGTH> bytes (C<seek> fails
with C<ESPIPE> and C<tell> counts the bytes read, as on mod_cgi's pipe), so CGI.pm-style
scripts work unchanged; if CGI.pm is loaded its globals are reset per request
(as CGI::Fast does).

=item CGIplus::private_stdout()

Moves the responses to a private copy of descriptor 1 (closed at exec)
and points STDOUT (descriptor 1) at stderr, so that what the script or a
program it runs prints there goes to the error log. Returns the handle
the script prints its responses to (C<accept>, C<finish> and C<callout>
use it too); undef with C<$!> if descriptor 1 could not be copied.
C<reexec> puts the responses back on descriptor 1 first.
Plack::Handler::CGIplus uses it.

=item CGIplus::private_stdin()

Persistent workers: moves the request bodies to a private copy of
descriptor 0 (closed at exec) and points STDIN (descriptor 0) at
F</dev/null>, so that a program the script runs that reads its stdin gets
its end at once instead of waiting on the requests' pipe. The tied STDIN
of each request reads the copy. True, or false with C<$!> (descriptor 0
left as it was). C<reexec> puts the pipe back on descriptor 0 first.
Plack::Handler::CGIplus uses it.

=item CGIplus::request_env()

A hash reference: the environment a CGI process of this request would
have, the worker's own environment as it was at the first C<accept> plus
the request's variables, without what the script has set in C<%ENV>
since (Plack::Handler::CGIplus builds the PSGI environment from it).
Plain CGI: a copy of C<%ENV>.

=item CGIplus::finish()

Flushes STDOUT and writes the CGIPLUSEOF sentinel line directly after the
last byte. Plain CGI: only flushes.

=item CGIplus::callout($line)

Sends one callout (C<"LIFETIME: 10">, C<"MAP-PATH: /x">) and returns the
answer line (C<"200 ...">) without its newline; C<""> for a line starting
with C<!> or C<#>; undef with C<$!> on error or when not persistent.

=item CGIplus::struct_mode()

Asks for later requests in struct mode (values verbatim). True on success or
in plain CGI.

=item CGIplus::set_idle($hook, $seconds)

Calls C<$hook> between requests and every C<$seconds> (default 1) while the
worker waits for one; persistent only. Used by C<cgiplus-psgi --reload>.

=item CGIplus::reexec(@argv)

From an idle hook: runs C<perl @argv> in the same process; the runner's
descriptors stay open, so no waiting request is lost. Returns only on
failure (logged, 3150).

=item CGIplus::is_persistent()

True under the runner.

=back

The C-style names C<cgiplus_accept>, C<cgiplus_finish>, C<cgiplus_callout>,
C<cgiplus_struct_mode>, C<cgiplus_is_persistent> can be imported.

Never print the value of C<CGIPLUSEOF> (or C<CGIPLUSESC>) in a response: the
runner would take it for the end of the response (or a callout).

=head1 WEBSOCKET WORKERS

In a WebSocket pool (an upgrade to the script; docs/PROTOCOL.md, part 2,
"WebSocket workers") a worker holds many connections:

    my $ws = CGIplus::WebSocket->new;     # says HELLO to the runner
    while (my $ev = $ws->next_event) {
        if ($ev->{type} eq 'open') {      # $ev->{env}: the upgrade's CGI variables
            $ws->accept($ev->{conn});     # or $ws->refuse($conn, 403, [...], $body)
        } elsif ($ev->{type} eq 'message') {
            $ws->send($ev->{conn}, $ev->{data}, $ev->{binary});
        }                                 # 'close': $ev->{code}, $ev->{reason}
    }

C<send($conn, $bytes, $binary)>, C<broadcast($bytes, $binary, $except)> (every
connection of the pool, whichever worker holds it), C<close($conn, $code,
$reason)>. Messages are bytes (text ones UTF-8). Every accepted connection
ends with exactly one 'close' event. Outside a WebSocket pool C<next_event>
answers plain requests 426 and returns undef.

=cut
