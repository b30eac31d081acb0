# A randomized differential test of what a script reads of its request
# body and how its output reaches the client, where t/39_cgi_diff_fuzz.t
# compares header blocks and t/31_cgi_env_fuzz.t the environment: a few
# hundred requests made with a fixed seed, each sent to one script
# (t/htdocs/cgidiff/body.pl) under mod_cgid (/cgid-diff/) and in the
# CGIplusCompat scopes of t/39 (/compat-diff/ plain CGI, /compat-diff-plus/
# persistent with the Perl library, /compat-diff-engine/ the Perl engine).
# Bodies of 0 B, 1 B, 64 KiB +/- 1, up to 3 MB, binary, with
# Content-Length or chunked (odd chunk sizes, extensions, trailers), with
# Expect: 100-continue, over LimitRequestBody (/body.pl/limit: 200000),
# HEAD and GET with a body, a request pipelined after one on the same
# connection; over HTTP/1.1 (a raw socket) and, for a subset, h2c (t/lib/h2req.py).
# The script reads in the way the query says (all, byte by byte, odd
# reads, not at all, half, to end of file, past CONTENT_LENGTH) and
# reports length:md5 of what it read; some answer in pieces with pauses,
# or 1 to 5 MB. Each answer is checked against what the script must have
# read (oracle()), and each scope's against mod_cgid's: status line (and
# 100 Continue), headers but Date and the framing, body. The differences
# docs/cgi-compat.md gives are expected as it says (oracle()): a chunked
# body has an exact CONTENT_LENGTH and no HTTP_TRANSFER_ENCODING, an
# empty chunked body is none at all; where mod_cgid's script left part of
# the body unread and mod_cgid's answer was lost ("An unread body": no
# response, a 500, a stream reset or never ended; "HEAD": DATA in a HEAD's
# answer over h2), that is asserted, and each scope's answer must be the
# script's whole (status, report, body); a connection closed after a body
# left unread must not answer the request pipelined after it.
# Found by it (session 55): no mod_cgiplus bug; curl 7.88 takes a
# response followed by RST_STREAM NO_ERROR (the body still coming) for a
# failure, so h2c goes through python3-h2 (t/lib/h2req.py); the closed
# connection, deliberate, was not documented.
use strict;
use warnings FATAL => 'all';
use Apache::Test;
use Apache::TestUtil qw(t_cmp t_debug);
use Apache::TestRequest ();
use Digest::MD5 qw(md5_hex);
use File::Path qw(make_path remove_tree);
use IO::Select;
use IO::Socket::INET;
use Time::HiRes qw(time);
use lib 't/lib';
use RawHTTP qw(read_response);
use CgiDiff qw(show compared differences);

# CGIPLUS_DIFF_SEED and CGIPLUS_DIFF_CASES explore other cases by hand.
my $SEED = $ENV{CGIPLUS_DIFF_SEED} // 3959;
my $NCASES = $ENV{CGIPLUS_DIFF_CASES} // 200;
my @scopes = ('/compat-diff', '/compat-diff-plus', '/compat-diff-engine');
my $LIMIT = 200000;      # t/conf/extra_cgi.conf.in, body.pl/limit

plan tests => $NCASES * (1 + @scopes) + 2,
    need { 'needs python3-h2 (Debian package python3-h2)' => !system('/usr/bin/python3 -c "import h2" 2>/dev/null') };

srand $SEED;
sub pick { $_[int rand @_] }
sub chance { rand() < $_[0] }

sub gen_body {
    my ($n) = @_;
    my $r = rand;
    my $unit = $r < 0.6 ? join('', map { chr int rand 256 } 1 .. ($n < 4099 ? $n : 4099))
             : $r < 0.8 ? "line of text\r\n" : $r < 0.9 ? "\0" : "\r\n0\r\n\r\n";
    return substr($unit x (1 + int($n / (length($unit) || 1))), 0, $n);
}

# One case: {proto (h1, h2), method, path, body, how (cl, chunked, none),
# chunks, ext, trailer, expect, follow, read, out}.
sub gen_case {
    my %c = (proto => chance(0.2) ? 'h2' : 'h1', path => 'body.pl');
    $c{method} = pick(qw(POST POST POST POST POST POST PUT PUT GET GET HEAD PATCH DELETE OPTIONS));
    my $len;
    if (chance(0.1)) {
        $c{path} = 'body.pl/limit';
        $len = pick($LIMIT - 1, $LIMIT, $LIMIT + 1, 300000, 1500000, 1000);
    } elsif ($c{method} =~ /^(GET|HEAD)$/ && chance(0.5)) {
        $len = 0;
    } else {
        $len = chance(0.05) ? 1000000 + int rand 2000000
             : pick(0, 0, 1, 2, 100, 65535, 65536, 65537, 1 + int rand 5000, 1 + int rand 100000);
    }
    $c{body} = gen_body($len);
    $c{how} = $len ? (chance(0.6) ? 'cl' : 'chunked') : pick('cl', 'cl', 'chunked', 'none', 'none');
    if ($c{how} eq 'chunked') {
        my @n;
        for (my $left = $len; $left > 0;) {
            my $n = pick(1, 3, 17, 255, 4093, 8191, 65537, 1 + int rand 100000);
            $n = $left if $n > $left;
            push @n, $n;
            $left -= $n;
        }
        $c{chunks} = \@n;
        $c{ext} = chance(0.3);
        $c{trailer} = chance(0.3);
    }
    $c{expect} = $c{proto} eq 'h1' && $c{how} ne 'none' && chance(0.15);
    $c{follow} = $c{proto} eq 'h1' && !$c{expect} && chance(0.15);
    $c{read} = pick(qw(all all odd none half eof past), $len <= 70000 ? 'byte' : 'odd');
    my $r = rand;
    $c{out} = $r < 0.03 ? 'p200' : $r < 0.08 ? 'p50' : $r < 0.15 ? 'b' . (1000000 + int rand 4000000) : 'n';
    # an empty body without content-length: whether mod_http2 makes it
    # chunked or gives it a length 0 depends on when its end came
    $c{how} = 'cl' if $c{proto} eq 'h2' && $c{how} eq 'chunked' && !$len;
    $c{wire} = wire_body(\%c);
    return \%c;
}

my @cases = map { gen_case() } 1 .. $NCASES;

# What the script must see and read: its report (body.pl), 'HTTP 413'
# where httpd refuses the body before the script runs; in list context
# also how many bytes of the body the script left unread.
sub oracle {
    my ($c, $cgid) = @_;
    my $len = length $c->{body};
    # (the body left unread: mod_cgid's answer may be lost as below)
    return wantarray ? ('HTTP 413', $len) : 'HTTP 413' if $c->{path} =~ /limit/ && $len > $LIMIT;
    my ($cl, $te) = (undef, '(none)');
    # mod_http2 gives a request that ends with its header a length, 0
    if ($c->{how} eq 'cl' || $c->{proto} eq 'h2' && $c->{how} eq 'none') {
        $cl = $len;
    } elsif ($c->{how} eq 'chunked') {
        # docs/cgi-compat.md, "Chunked request bodies": mod_cgi passes the
        # client's header and no length (an h2 body without content-length
        # is chunked to httpd); mod_cgiplus the exact length, and an empty
        # chunked body is no body ("Environment")
        ($cl, $te) = $cgid ? (undef, 'chunked') : ($len ? $len : undef, '(none)');
    }
    my $want = $cl // 0;
    my $read = $c->{read} eq 'eof' ? $c->{body} : $c->{read} eq 'none' ? ''
             : substr($c->{body}, 0, $c->{read} eq 'half' ? int($want / 2) : $want);
    my $after = $c->{read} eq 'past' ? length(substr($c->{body}, $want, 4096)) : '-';
    my $report = "$c->{method} $c->{read} cl=" . ($cl // '(none)') . " te=$te read=" . length($read) . ':'
        . md5_hex($read) . " after=$after";
    return wantarray ? ($report, $len - length($read) - ($after eq '-' ? 0 : $after)) : $report;
}

# The script's body for a report (body.pl).
sub script_body {
    my ($c, $report) = @_;
    return '' if $c->{method} eq 'HEAD';
    my $b = "$report\n";
    if ($c->{out} =~ /^p/) {
        $b .= "piece $_\n" for 1 .. 3;
    } elsif ($c->{out} =~ /^b(\d+)/) {
        my $len = $1;
        my $block = join '', map { chr(($_ * 7 + $len) % 256) } 0 .. 65535;
        $b .= substr($block x (1 + int($len / 65536)), 0, $len);
    }
    return $b;
}

my $hp = Apache::TestRequest::hostport();
my $h2c_port = Apache::Test::config()->port('cgiplus_h2c');
my $tmp = Apache::Test::vars('t_logs') . '/bodydiff';
remove_tree($tmp);
make_path($tmp);

sub wire_body {
    my ($c) = @_;
    return $c->{body} unless $c->{how} eq 'chunked';
    my ($o, $s) = (0, '');
    for my $n (@{ $c->{chunks} }) {
        my $x = sprintf($n % 2 ? '%x' : '%04X', $n);
        $s .= $x . ($c->{ext} ? pick(';e=1', ';name="q v"', ';a;b=c') : '') . "\r\n" . substr($c->{body}, $o, $n) . "\r\n";
        $o += $n;
    }
    return $s . '0' . ($c->{ext} ? ';last' : '') . "\r\n"
        . ($c->{trailer} ? "X-Trailer: t\r\nX-Sum: " . md5_hex($c->{body}) . "\r\n" : '') . "\r\n";
}

# One exchange on a raw HTTP/1.1 connection: the request's head; its body
# (held back for 100 Continue, at most 1 s, as curl does) written while the
# response is read; the whole of what came until the server closed.
sub h1_exchange {
    my ($head, $rest, $expect, $deadline) = @_;
    my $s = IO::Socket::INET->new(PeerAddr => $hp, Timeout => 20) or return ('', "connect: $!");
    $s->blocking(0);
    my $sel = IO::Select->new($s);
    my ($out, $in, $note, $wfail) = ($head, '', '', 0);
    my $held = $expect ? $rest : undef;
    $out .= $rest unless $expect;
    my $t0 = time;
    while (time - $t0 < $deadline) {
        if (defined $held) {
            if ($in =~ m{^HTTP/1\.1 100[^\r]*\r\n\r\n}) {
                ($out, $held) = ($out . $held, undef);
            } elsif ($in =~ /\r\n\r\n/) {
                ($note, $held) = ('(the body not sent: answered before 100 Continue)', undef);
            } elsif (time - $t0 > 1) {
                ($out, $held, $note) = ($out . $held, undef, '(no 100 Continue within 1 s)');
            }
        }
        my ($r, $w) = IO::Select->select($sel, length $out && !$wfail ? $sel : undef, undef, 0.1);
        if ($w && @$w) {
            my $n = syswrite $s, $out, 65536;
            if (defined $n) { substr($out, 0, $n, '') } elsif (!$!{EAGAIN}) { $wfail = 1 }
        }
        if ($r && @$r) {
            my $n = sysread $s, $in, 65536, length $in;
            last if defined $n && $n == 0;
            if (!defined $n && !$!{EAGAIN}) { $note .= "(read: $!)"; last }
        }
    }
    close $s;
    return ($in, $note);
}

sub h1_fetch {
    my ($prefix, $c) = @_;
    my $path = "$prefix/$c->{path}?$c->{read}.$c->{out}";
    my $head = "$c->{method} $path HTTP/1.1\r\nHost: $hp\r\n" . ($c->{follow} ? '' : "Connection: close\r\n")
        . ($c->{expect} ? "Expect: 100-continue\r\n" : '') . "Content-Type: application/octet-stream\r\n";
    $head .= 'Content-Length: ' . length($c->{body}) . "\r\n" if $c->{how} eq 'cl';
    $head .= "Transfer-Encoding: chunked\r\n" if $c->{how} eq 'chunked';
    my $rest = $c->{wire};
    # the next request on the connection, after a body its script may not
    # have read
    $rest .= "GET $prefix/body.pl?past.n HTTP/1.1\r\nHost: $hp\r\nConnection: close\r\n\r\n" if $c->{follow};
    # mod_cgid writes the whole body to its script before it reads the
    # output: a script that leaves it unread and writes much waits for
    # httpd's Timeout (below, "An unread body")
    my ($in, $note) = h1_exchange("$head\r\n", $rest, $c->{expect},
                                  $prefix eq '/cgid-diff' && (oracle($c, 1))[1] ? 3 : 60);
    my @res;
    for my $m ($c->{method}, $c->{follow} ? 'GET' : ()) {
        my $r = read_response(undef, \$in, $m)
            // { status_line => "(no response) $note", headers => [], body => '', interim => [] };
        $r->{status_line} = join(' | ', @{ $r->{interim} }, $r->{status_line}) . ($note ? " $note" : '');
        push @res, compared($r, $prefix);
        $note = '';
    }
    $res[0]{body} .= "\n(then) $res[1]{status}\n" . join("\n", map { "$_->[0]: $_->[1]" } @{ $res[1]{headers} })
        . "\n\n$res[1]{body}" if @res > 1;
    return $res[0];
}

# h2c by t/lib/h2req.py: the body from a file, with content-length or
# without one.
sub h2_fetch {
    my ($prefix, $c, $i) = @_;
    my ($bf, $hf, $of) = map { "$tmp/$i.$_" } qw(body head out);
    unless (-e $bf) {
        open my $fh, '>:raw', $bf or die "$bf: $!";
        print $fh $c->{body};
        close $fh or die $!;
    }
    # mod_cgid's stream does not end when its script leaves such a body
    # unread (below, "An unread body")
    my $max = $prefix eq '/cgid-diff' && (oracle($c, 1))[1] ? 2 : 60;
    system '/usr/bin/python3', 't/lib/h2req.py', $h2c_port, $c->{method}, "$prefix/$c->{path}?$c->{read}.$c->{out}",
        $bf, { cl => 'cl', chunked => 'nolen', none => 'none' }->{ $c->{how} }, $hf, $of, $max;
    my ($head, $body) = ('', '');
    for ([$hf, \$head], [$of, \$body]) {
        open my $fh, '<:raw', $_->[0] or next;
        local $/;
        ${ $_->[1] } = <$fh> // '';
    }
    unlink $hf, $of;
    my ($sl, @l) = split /\r\n/, $head;
    my @h = map { /^([^:]+):\s*(.*)$/ ? [$1, $2] : [$_, undef] } @l;
    return compared({ status_line => $sl // "(h2req.py failed: $?)", headers => \@h, body => $body }, $prefix);
}

sub fetch {
    my ($prefix, $c, $i) = @_;
    return $c->{proto} eq 'h2' ? h2_fetch($prefix, $c, $i) : h1_fetch($prefix, $c);
}

# The script's report in a response: its X-Read header, or the status.
sub report_of {
    my ($r) = @_;
    my ($x) = map { $_->[1] } grep { lc $_->[0] eq 'x-read' } @{ $r->{headers} };
    return $x // do { (my $s = $r->{status}) =~ s{^(?:.* \| )?HTTP/[\d.]+ (\d+).*}{HTTP $1}s; $s };
}

sub diag { print STDERR map { "# $_\n" } split /\n/, join "", @_ }

sub label {
    my ($i, $c) = @_;
    return "case $i ($c->{proto} $c->{method} /$c->{path} $c->{how} " . length($c->{body}) . ' B'
        . ($c->{how} eq 'chunked' ? ' in ' . @{ $c->{chunks} } . ' chunks' . ($c->{ext} ? ', extensions' : '')
           . ($c->{trailer} ? ', trailers' : '') : '')
        . ($c->{expect} ? ', Expect: 100-continue' : '') . ($c->{follow} ? ', a GET after it' : '')
        . "; reads $c->{read}, answers $c->{out})";
}

# an answer lost on the way
my $LOST = qr{^\(no response\)|\((reset \d+|closed|timed out|protocol error: \w+)\)$};
my (%n, $pairs, @unread, $closed);
for my $i (0 .. $#cases) {
    my $c = $cases[$i];
    my $what = label($i, $c);
    my $ref = fetch('/cgid-diff', $c, $i);
    my ($oc, $left) = oracle($c, 1);
    my $op = oracle($c, 0);
    $n{ $c->{proto} }++;
    my $intact = report_of($ref) eq $oc && $ref->{status} !~ $LOST
        && ($oc =~ /^HTTP/ || ($ref->{body} =~ s/\n\(then\) .*//sr) eq script_body($c, $oc));
    my $want;
    # docs/cgi-compat.md, "HEAD": mod_cgid's HEAD over HTTP/2 may be a
    # protocol error (DATA in the answer)
    my $head_h2 = $c->{method} eq 'HEAD' && $c->{proto} eq 'h2' && $ref->{status} =~ /\(protocol error/;
    if (!$intact && ($left || $head_h2)) {
        # docs/cgi-compat.md, "An unread body": mod_cgid's script left
        # part of the body unread, and its client got a reset, a 500, a
        # stream that does not end or nothing, by timing; here the script's
        # answer, whole
        push @unread, "$what: " . show($ref->{status});
        ok t_cmp($ref->{status}, qr{$LOST|^HTTP/(2|1\.1) 500\b},
                 "mod_cgid $what: the answer lost, as documented");
        $want = $op =~ /^HTTP/
            ? { status => $c->{proto} eq 'h2' ? 'HTTP/2 413' : 'HTTP/1.1 413 Request Entity Too Large' }
            : { status => $c->{proto} eq 'h2' ? 'HTTP/2 200' : 'HTTP/1.1 200 OK', body => script_body($c, $op) };
        # a length past the limit is refused before 100 Continue
        if ($c->{expect} && $op =~ /^HTTP/ && $c->{how} eq 'cl') {
            $want->{status} .= ' (the body not sent: answered before 100 Continue)';
        } elsif ($c->{expect}) {
            $want->{status} = "HTTP/1.1 100 Continue | $want->{status}";
        }
    } else {
        unless (ok t_cmp(report_of($ref), $oc, "mod_cgid $what: read as it must")) {
            diag "  mod_cgid's status: " . show($ref->{status});
        }
        # mod_cgid's answer with the documented differences of what the script saw
        $want = { %$ref, headers => [map { [$_->[0], $_->[1] =~ s/\Q$oc\E/$op/r] } @{ $ref->{headers} }],
                  body => $ref->{body} =~ s/\Q$oc\E/$op/r };
    }
    my $kleft = (oracle($c, 0))[1];
    for my $s (@scopes) {
        my $got = fetch($s, $c, $i);
        $pairs++;
        my @d;
        my $w = $want;
        if ($c->{follow} && $kleft && grep { lc $_->[0] eq 'connection' && $_->[1] =~ /close/i } @{ $got->{headers} }) {
            # docs/cgi-compat.md, "An unread body": the connection is
            # closed rather than the rest of the body read; the request
            # after it is not answered
            $closed++;
            my $then = $got->{body} =~ s/\n\(then\) (.*)//s ? $1 : '(none)';
            push @d, 'the request after it answered on a closed connection: ' . show($then)
                unless $then =~ /^\(no response\)/;
            my $nc = sub { [grep { lc $_->[0] ne 'connection' } @{ $_[0] }] };
            $got = { %$got, headers => $nc->($got->{headers}), body => $got->{body} =~ s/\n\(then\) .*//sr };
            $w = { %$w, body => $w->{body} =~ s/\n\(then\) .*//sr, $w->{headers} ? (headers => $nc->($w->{headers})) : (),
                   then => 'closed' } if defined $w->{body};
        }
        if (!$w->{headers}) {
            # the status line (no 100 Continue before it) and body alone
            # and the request after it, whole
            my $then = $got->{body} =~ s/\n\(then\) (.*)//s ? $1 : undef;
            # (httpd's 413 page)
            push @d, differences({ %$got, headers => [] },
                             { %$w, headers => [], body => $w->{body} // $got->{body} });
            push @d, "the 413 page: '" . show($got->{body}) . "'"
                if !defined $w->{body} && $got->{body} !~ /Request Entity Too Large/;
            s/mod_cgid/must be/g for @d;
            push @d, 'the request after it: ' . show($then // '(none)')
                if $c->{follow} && !$w->{then} && ($then // '') !~ m{^HTTP/1\.1 200 OK\n.*X-Read: GET past cl=\(none\) te=\(none\) read=0:d41d8cd98f00b204e9800998ecf8427e after=0\n}s;
        } else {
            push @d, differences($got, $w);
        }
        unshift @d, "read: got '" . report_of($got) . "', must be '$op'" if report_of($got) ne $op;
        unless (ok t_cmp(join("\n", @d), q{}, "$s $what: as mod_cgid")) {
            diag "  $_" for @d;
        }
    }
}
t_debug('the connection closed after an unread body, the request after it not answered: ' . ($closed // 0));
t_debug("mod_cgid's script left a body unread and its answer was lost (docs/cgi-compat.md, \"An unread body\"): "
        . scalar(@unread) . "\n" . join("\n", @unread));
t_debug("$NCASES requests ($n{h1} HTTP/1.1, " . ($n{h2} // 0) . ' h2c) x ' . @scopes . " scopes and mod_cgid: $pairs pairs");
ok t_cmp(($n{h2} // 0) > $NCASES / 10 ? 'some' : 'few', 'some', 'a part of the requests over h2c');
ok t_cmp(scalar(grep { $_->{how} eq 'chunked' && length $_->{body} } @cases) > 20 ? 'some' : 'few', 'some',
         'chunked bodies among them');
remove_tree($tmp);
