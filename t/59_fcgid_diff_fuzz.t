# A randomized differential test of what a FastCGI application writes,
# under mod_fcgid and under the fcgid-script drop-in (direct and relayed),
# the same Fcgid* configuration in both private httpds. One responder
# (t/htdocs/fcgi/diff.py, written from the specification) carries out the
# case its QUERY_STRING names; 250 cases are made from a grammar with a
# fixed seed: STDOUT header blocks (Status variants, Location local and
# absolute, no Content-Type, repeated headers, odd names, CRLF and LF
# mixed, no blank line, right and wrong Content-Length, the application's
# Transfer-Encoding, control characters and NUL), bodies (none, short,
# 100 KB), in records cut anywhere and padded, STDERR records among them,
# and the application's end: END_REQUEST with or without the empty STDOUT
# record, a non-zero application status, a protocol status, a death
# before its header, in it, after part of its body, a closed connection,
# an exit after a whole response. Each case by GET or HEAD, some with
# Range or conditions; the scope is AddHandler fcgid-script (the
# application itself, its connection kept) or FcgidWrapper (a connection
# per request, as mod_fcgid connects: the scope of the exits after a
# response). The status line, headers but the
# date, Server and the framing, the body, and whether the response ended
# as its framing says must be mod_fcgid's, but for the differences
# docs/APPS.md ("A packaged mod_fcgid set-up") lists, each asserted where
# it arises (judge(); each met at least once): where the application's
# header is one the drop-in reads otherwise (its Transfer-Encoding or a
# wrong Content-Length dropped, a NUL or folded line refused), the
# reference is mod_fcgid's answer to its twin, the output as the drop-in
# reads it. Then an application's refusal (protocol status, no output),
# and the STDERR lines in both error logs.
# Found by it (session 55): a relayed request given a worker whose
# application had exited after its last response (a direct request's)
# failed with 500 ("exited before its response"): it goes to another
# worker now (3743; exits run in the per-request scope here, since on a
# kept connection one a child gives the exiting worker may still fail, a
# documented limitation); an END_REQUEST with a protocol status after output
# was 503, 502 or a cut response as the timing fell: the output stands
# now, as under mod_fcgid (3741, 3742).
use strict;
use warnings FATAL => 'all';
use Apache::Test;
use Apache::TestUtil qw(t_cmp);
use JSON::PP ();
use File::Copy qw(copy);
use lib 't/lib', 't/htdocs/apps';
use PrivateHttpd qw(private_conf private_start private_stop private_dir libexec private_log);
use FreePort qw(free_ports);
use RawHTTP qw(raw_request);
use AppTest qw(write_file);
use CgiDiff qw(show);

# CGIPLUS_DIFF_SEED and CGIPLUS_DIFF_CASES explore other cases by hand.
my $SEED = $ENV{CGIPLUS_DIFF_SEED} // 5959;
my $NCASES = $ENV{CGIPLUS_DIFF_CASES} // 250;
my @sides = ('direct', 'relayed');

plan tests => 3 + $NCASES * @sides + 3 * (1 + @sides) + 2 + 7 + 2,
    need { 'needs mod_fcgid (libapache2-mod-fcgid)' => -f libexec() . '/mod_fcgid.so',
           'needs python3' => -x '/usr/bin/python3' };

srand $SEED;
sub pick { $_[int rand @_] }
sub chance { rand() < $_[0] }

my @ends = ("\n", "\r\n");

# One case: { steps => [the responder's steps], method, proto, req =>
# [name, value...], path, body => what the application wrote after its
# header, end => how it ended, err => [STDERR lines] }.
sub gen_case {
    my ($n) = @_;
    my %c = (method => chance(0.25) ? 'HEAD' : 'GET', proto => chance(0.1) ? 'HTTP/1.0' : 'HTTP/1.1',
             req => [], path => chance(0.3) ? "/w/page.x?$n" : "/a/diff.fcgi?$n");
    my @h;
    if (chance(0.45)) {
        my $code = chance(0.75)
            ? pick(qw(200 201 204 206 301 302 303 304 307 400 401 403 404 410 412 416 418 500 502 503 599))
            : pick(qw(099 100 199 299 600 999 0200 20 abc), '', '200.0');
        my $reason = pick('', '', ' OK', ' Not Found', ' Fine', " tab\there", ' x' x 30);
        push @h, pick('Status', 'Status', 'status', 'STATUS') . pick(': ', ':', ":\t") . "$code$reason";
        push @h, 'Status: 200 Again' if chance(0.05);
    }
    if (chance(0.2)) {
        my $loc = pick('http://example.com/a', 'https://example.org/p?q=1#f', '/a/target.txt',
                       '/a/target.txt?x=1', '/a/nothing-here', '/a/diff.fcgi?0', '/w/page.x?0',
                       'relative.txt', '', '//example.net/x');
        push @h, pick('Location', 'location') . ": $loc";
        push @h, 'Location: http://example.com/second' if chance(0.1);
    }
    if (chance(0.8)) {
        my @ct = ('text/plain', 'text/html; charset=UTF-8', 'application/octet-stream', 'image/png', '',
                  'application/json ');
        push @h, pick('Content-Type', 'Content-Type', 'content-type', 'CONTENT-TYPE') . ': ' . pick(@ct);
        push @h, 'Content-Type: ' . pick(@ct) if chance(0.1);
    }
    if (chance(0.25)) {
        push @h, 'Set-Cookie: ' . pick('a=1; Path=/', 'b=2; HttpOnly', 'a=3', 'e=' . ('z' x 300))
            for 1 .. 1 + int rand 3;
    }
    if (chance(0.25)) {
        my $name = pick('X-Rep', 'Cache-Control', 'Vary', 'Link', 'Warning', 'Via');
        push @h, "$name: " . pick('one', 'no-cache', 'Accept', 'two, three', '') for 1 .. 2 + int rand 2;
    }
    if (chance(0.15)) {
        push @h, pick('X_Under', 'x-lower', 'X.Dot', 'X~Tilde', 'X Space', 'X(Paren)', "X\x7fDel", "X\x80High",
                      'X"Quote', 'X/Slash', '', "X\tTab", '1Digit', "X\x01Ctl") . ': odd name';
    }
    if (chance(0.15)) {
        push @h, pick('X-Ws :v', 'X-Ws:v', "X-Ws:  \t v", 'X-Ws: v   ', "X-Ws\t: v", 'X-Ws:  ',
                      'Status :404', 'Content-Type : text/html', 'X-Empty:', "X-Empty:\t");
    }
    if (chance(0.05)) {
        push @h, pick("X-Cr: a\rb", "X-Cr: v\r\r", "X-Ctl: a\x01b", "X-Esc: \e[0m", "X-Del: a\x7f",
                      "X-Nul: a\0b");
    }
    if (chance(0.05)) {
        my $len = pick(8180, 8189, 8190, 8192, 9000);
        push @h, 'X-Long: ' . ('a' x ($len - 8));
    }
    my $body = pick('', '', "hello\n", "line1\r\nline2\r\n", 'no newline at end', "\r\n",
                    "X-Header-Like: yes\n\nmore\n", 'x' x 5000, "\x00\x01\x02\xff\xfe" x 3);
    if (chance(0.15)) { $body = join '', map { chr int rand 256 } 1 .. 1 + int rand 3000 }
    if (chance(0.08)) { $body = join '', map { chr(97 + $_ % 26) } 1 .. 100_000 }
    if (chance(0.15)) {
        my $len = length $body;
        my $v = pick($len, $len, $len + 5, $len > 3 ? $len - 3 : 0, 'abc', " $len ");
        push @h, "Content-Length: $v";
        $c{cl} = $v;
    }
    if (chance(0.05)) {
        my $te = pick('chunked', 'identity', 'gzip', 'CHUNKED');
        push @h, "Transfer-Encoding: $te";
        $c{te} = $te;
    }
    my @dates = ('Tue, 01 Jan 2002 00:00:00 GMT', 'Sat, 01 Jan 2000 00:00:00 GMT');
    my $lm = chance(0.2) ? pick(@dates, 'garbage date') : undef;
    my $et = chance(0.15) ? pick('"abc"', 'W/"abc"', 'abc') : undef;
    push @h, "Last-Modified: $lm" if defined $lm;
    push @h, "ETag: $et" if defined $et;
    if ((defined $lm || defined $et) && chance(0.7) || chance(0.1)) {
        my @r;
        push @r, 'If-Modified-Since' => pick(@dates) if chance(0.5);
        push @r, 'If-None-Match' => pick('"abc"', '"zzz"', '*') if chance(0.3);
        push @r, 'If-Unmodified-Since' => pick(@dates) if chance(0.1);
        push @r, 'Range' => pick('bytes=0-3', 'bytes=2-', 'bytes=-2', 'bytes=0-1,3-4') if chance(0.3);
        $c{req} = \@r;
    }
    if (chance(0.2)) {
        push @h, pick('Content-Encoding: gzip', 'Expires: Thu, 01 Jan 1970 00:00:00 GMT', 'Server: evil/1.0',
                      'Date: Mon, 01 Jan 2001 00:00:00 GMT', 'Connection: close', 'Keep-Alive: timeout=1',
                      'Content-Range: bytes 0-3/10', 'Accept-Ranges: bytes', 'Retry-After: 7', 'Trailer: X-T',
                      'X-CGIplus-File: /etc/hostname');
    }
    push @h, map { "X-Many-$_: " . ('m' x 1000) } 1 .. 20 + int rand 60 if chance(0.03);
    if (chance(0.04)) {
        push @h, pick('Garbage line', ' folded continuation', "\tfolded tab", ': no name', "\0", 'Status 200');
    }
    if (chance(0.3)) {
        for my $i (reverse 1 .. $#h) { my $j = int rand($i + 1); @h[$i, $j] = @h[$j, $i] }
    }
    my $mode = rand;
    my $eol = sub { $mode < 0.4 ? "\n" : $mode < 0.8 ? "\r\n" : pick(@ends) };
    my @eol = map { $eol->() } @h, 'blank';
    my $head = join '', map { $h[$_] . $eol[$_] } 0 .. $#h;
    # the application's end
    my $r = rand;
    my $end = $r < 0.66 ? 'end' : $r < 0.71 ? 'noeos' : $r < 0.78 ? 'status' : $r < 0.81 ? 'proto'
        : $r < 0.83 ? 'die0' : $r < 0.85 ? 'diehead' : $r < 0.90 ? 'diebody' : $r < 0.92 ? 'close'
        : $r < 0.95 ? 'exit' : $r < 0.97 ? 'nohead' : 'halfhead';
    my $out;
    my $part = $body;                                # what of the body it writes
    if ($end eq 'die0') { $out = '' }
    elsif ($end eq 'diehead') { $out = substr $head, 0, int rand(length $head) }
    elsif ($end eq 'halfhead') { $out = $head }      # no blank line: the output ends in the header
    elsif ($end eq 'diebody' || $end eq 'close') {
        $body = 'y' x 100_000 if chance(0.4);
        $part = substr($body, 0, int rand(length $body));
        $out = $head . $eol[-1] . $part;
    } else { $out = $head . $eol[-1] . $body }
    $out = $body if $end eq 'nohead';                # no header at all
    # A program that exits by itself, on a kept connection: a request
    # given it as it exits may fail, as under mod_fcgid (docs/APPS.md, "One
    # connection per request"); /w/ connects per request, as mod_fcgid.
    $c{path} = "/w/page.x?$n" if $end eq 'exit';
    # The twin: the output mod_fcgid's answer to is the reference where
    # the drop-in differs on purpose (docs/APPS.md), with a whole end.
    if ($end !~ /^(die0|diehead|halfhead|nohead)$/) {
        my (@t, %why);
        my $right = length $body;
        for my $i (0 .. $#h) {
            my $l = $h[$i];
            if ($l =~ /\0/ || $l =~ /^[ \t]/) {   # refused as malformed
                $why{malformed} = 1;
                $l = 'Garbage line';
            } elsif ($l =~ /^Transfer-Encoding:/) {   # dropped: the body framed
                $why{te} = 1;
                next;
            } elsif ($l =~ /^Content-Length: (.*)/ && $1 ne $right) {   # dropped: what was written framed
                $why{cl} = 1;
                next;
            }
            push @t, $l . $eol[$i];
        }
        $why{dies} = 1 if $end eq 'diebody' || $end eq 'close';
        if (%why) {
            $c{why} = [sort keys %why];
            $c{twin} = join('', @t) . $eol[-1] . $part;
        }
    }
    $c{body} = $body;
    $c{end} = $end;
    # STDOUT in records, STDERR lines among them
    my $cut = pick(0, 0, 0, 1, 7, 100, 4096);
    $cut = 100 if $cut == 1 && length $out > 2000;
    my $pad = pick(0, 0, 0, 7, 255);
    my @steps;
    my @err = chance(0.2) ? map { "fz$n.$_ " . pick('a stderr line', "with\ttab", 'x' x 200, 'ütf8 é') } 1 .. 1 + int rand 3 : ();
    $c{err} = [@err];
    my @at = sort { $a <=> $b } map { int rand(length($out) + 1) } @err;
    # where its header ends in the output (past its end: none does)
    my $hend = $out =~ /\A(?:[^\n]*\n)*?\r?\n/ ? $+[0] : length($out) + 1;
    $hend = 0 if $end eq 'nohead';
    $c{err_in_head} = { map { ($err[$_] => $at[$_] < $hend) } 0 .. $#err };
    my $prev = 0;
    for my $i (0 .. $#err) {
        push @steps, ['o', substr($out, $prev, $at[$i] - $prev), $pad, $cut] if $at[$i] > $prev;
        push @steps, ['e', $err[$i] . "\n"];
        $prev = $at[$i];
    }
    push @steps, ['o', substr($out, $prev), $pad, $cut] if length($out) > $prev;
    if ($end =~ /^die/) { push @steps, ['die'] }
    elsif ($end eq 'close') { push @steps, ['close'] }
    elsif ($end eq 'noeos') { push @steps, ['end', 0, 0, 0] }
    elsif ($end eq 'status') { push @steps, ['end', pick(1, 3, 255, 65536, 4294967295), 0, 1] }
    elsif ($end eq 'proto') {
        $c{proto_status} = pick(1, 2, 3);
        push @steps, ['end', 0, $c{proto_status}, 1];
    }
    else { push @steps, ['end', 0, 0, 1] }
    push @steps, ['exit'] if $end eq 'exit';
    $c{steps} = \@steps;
    $c{out} = $out;
    return \%c;
}

# Case 0: where Location /a/diff.fcgi?0 and /w/page.x?0 lead.
my @cases = ({ steps => [['o', "Content-Type: text/plain\n\nzero\n", 0, 0], ['end', 0, 0, 1]],
               method => 'GET', proto => 'HTTP/1.1', req => [], path => '/a/diff.fcgi?0', body => "zero\n",
               end => 'end', err => [], out => "Content-Type: text/plain\n\nzero\n" });
push @cases, gen_case($_) for 1 .. $NCASES - 1;
# END_REQUEST with protocol status 1, 2, 3 and no output.
my @refusals = map { { steps => [['end', 0, $_, 1]], method => 'GET', proto => 'HTTP/1.1', req => [],
                       path => '/a/diff.fcgi?' . ($NCASES + $_ - 1), pstatus => $_ } } 1 .. 3;

my $dir = private_dir('fcgiddifffuzz');
mkdir "$dir/$_", 0755 for qw(app wrap cases);
chmod 0755, $dir;
my $src = Apache::Test::vars('documentroot') . '/fcgi';
copy("$src/diff.py", "$dir/app/diff.fcgi") or die "copy: $!";
copy("$src/fcgirec.py", "$dir/app/fcgirec.py") or die "copy: $!";
chmod 0755, "$dir/app/diff.fcgi";
chmod 0644, "$dir/app/fcgirec.py";
write_file("$dir/app/target.txt", "the target\n", 0644);
write_file("$dir/wrap/page.x", "a page\n", 0644);
my $json = JSON::PP->new->canonical;
for my $i (0 .. $#cases + @refusals) {
    if ($i > $#cases) {
        write_file("$dir/cases/$i", $json->encode($refusals[$i - @cases]{steps}), 0644);
        next;
    }
    # a byte a character: the responder reads the file as latin-1
    write_file("$dir/cases/$i", $json->encode($cases[$i]{steps}), 0644);
    write_file("$dir/cases/t$i", $json->encode([['o', $cases[$i]{twin}, 0, 0], ['end', 0, 0, 1]]), 0644)
        if defined $cases[$i]{twin};
}

my ($fport, $dport, $rport) = free_ports(3);
my $lib = libexec();
my $common = <<"CONF";
LoadModule alias_module $lib/mod_alias.so
LoadModule mime_module $lib/mod_mime.so
TypesConfig /etc/mime.types
LogLevel warn
FcgidInitialEnv FZ_CASES $dir/cases
FcgidMaxProcessesPerClass 4
FcgidIOTimeout 20
# deaths are the point here: mod_fcgid must not slow its spawns for them
FcgidSpawnScoreUpLimit 100000
FcgidTerminationScore 0
Alias /a/ $dir/app/
Alias /w/ $dir/wrap/
<Directory $dir/app>
    AddHandler fcgid-script .fcgi
    Options +ExecCGI
    Require all granted
</Directory>
<Directory $dir/wrap>
    AddHandler fcgid-script .x
    FcgidWrapper $dir/app/diff.fcgi .x
    CGIplusFastCGIConnection per-request
    Options +ExecCGI
    Require all granted
</Directory>
ErrorDocument 404 "not found here"
CONF
private_dir("fcgiddifffuzz/$_") for qw(fcgid ours);
write_file("$dir/fcgid/httpd.conf", private_conf("$dir/fcgid", $fport, [],
    "LoadModule fcgid_module $lib/mod_fcgid.so\nFcgidIPCDir $dir/fcgid/ipc\n"
    . "FcgidProcessTableFile $dir/fcgid/shm\n$common"), 0644);
write_file("$dir/ours/httpd.conf", private_conf("$dir/ours", $dport, [], <<"CONF"), 0644);
$common
Listen 127.0.0.1:$rport
<VirtualHost 127.0.0.1:$rport>
    CGIplusDirect off
</VirtualHost>
CONF
ok t_cmp(private_start("$dir/fcgid/httpd.conf", $fport), 1, 'mod_fcgid: httpd starts');
ok t_cmp(private_start("$dir/ours/httpd.conf", $dport), 1, 'the drop-in: httpd starts');
my %hp = (fcgid => "127.0.0.1:$fport", direct => "127.0.0.1:$dport", relayed => "127.0.0.1:$rport");

my %framing = map { $_ => 1 } qw(date server content-length transfer-encoding);

# The response as compared: status line, headers, body, and whether it
# ended as its framing says (a cut connection does not).
sub fetch {
    my ($side, $c) = @_;
    my $r = raw_request($hp{$side}, $c->{method}, $c->{path}, $c->{req}, undef, { proto => $c->{proto} });
    my %h = map { lc $_->[0] => $_->[1] } @{ $r->{headers} };
    my @h = map { [$_->[0], $_->[1] // '(none)'] } grep { !$framing{lc $_->[0]} } @{ $r->{headers} };
    my $whole = 'whole';
    my ($raw_body) = ($r->{raw} // '') =~ /\r\n\r\n(.*)\z/s;
    $raw_body //= '';
    if ($c->{method} eq 'HEAD' || $r->{code} =~ /^(1\d\d|204|304)$/) {
    } elsif (($h{'transfer-encoding'} // '') =~ /chunked/i) {
        $whole = 'cut' unless $raw_body =~ /(?:\A|\r\n)0\r\n\r\n\z/;
    } elsif (defined $h{'content-length'}) {
        $whole = 'cut' if $h{'content-length'} =~ /^\d+\z/ && length $raw_body < $h{'content-length'};
    } else {
        $whole = 'unframed';
    }
    return { status => $r->{status_line}, headers => \@h, body => $r->{body}, whole => $whole };
}

sub diag { print STDERR map { "# $_\n" } split /\n/, join "", @_ }


# httpd's own 500 page, as the drop-in sends it for a failed application
# (mod_fcgid's may follow the application's status: "Additionally...").
sub page500 { $_[0] =~ m{\A<!DOCTYPE HTML PUBLIC [^\n]*\n<html><head>\n<title>500 [^<\n]*</title>\n.*</html>\n\z}s }

# The differences met, by name (each must be met: the end).
my %met;

# mod_fcgid's answer as the drop-in's should be, for what mod_fcgid does
# worse (docs/APPS.md, "A packaged mod_fcgid set-up"): a header httpd
# refuses after mod_fcgid passed it on is answered 500 twice over, two
# pages in one body; the drop-in sends the first.
sub one_page {
    my ($r, $c) = @_;
    if ($r->{status} =~ /^HTTP\/1\.1 5/ && $r->{body} =~ m{\A(<!DOCTYPE HTML.*?</html>\n)<!DOCTYPE HTML.*</html>\n\z}s) {
        $met{'two error pages'}++;
        return { %$r, body => $1 };
    }
    return $r;
}

# Whether the drop-in's answer $got is as it must be for case $c, given
# mod_fcgid's answer $ref: its differences (empty: as it must be).
sub judge {
    my ($c, $i, $got, $ref) = @_;
    return differences($got, one_page($ref, $c)) unless $c->{twin};
    # mod_fcgid's answer to the twin: the output as the drop-in reads it
    my $twin = one_page(fetch('fcgid', { %$c, path => $c->{path} =~ s/\?\d+$/?t$i/r }), $c);
    my %why = map { $_ => 1 } @{ $c->{why} };
    return differences($got, $twin) unless $why{dies};
    # A death mid-body: as mod_fcgid (500), or httpd's 500 page where
    # mod_fcgid's differs by the application's headers it keeps (each
    # keeps some of them, as httpd leaves them; a status the application
    # set is named on the drop-in's page: "Additionally, a 404..."), or
    # the response cut (its header had gone out: a streamed response is
    # never ended as if whole, where mod_fcgid, past what it holds, ends
    # it so).
    my @d = differences($got, one_page($ref, $c));
    return () unless @d;
    my %app = map { ("$_->[0]: $_->[1]" => 1) } @{ $twin->{headers} };
    if ($got->{status} =~ /^HTTP\/1\.1 500 / && ($c->{method} eq 'HEAD' ? $got->{body} eq '' : page500($got->{body}))
        && !grep({ !$app{"$_->[0]: $_->[1]"} && $_->[0] ne 'Connection'
                   && "$_->[0]: $_->[1]" ne 'Content-Type: text/html; charset=iso-8859-1' } @{ $got->{headers} })) {
        $met{'death: 500'}++;
        return ();
    }
    my $cut = $c->{method} eq 'HEAD' ? 'whole' : 'cut';
    my $prefix = substr($twin->{body}, 0, length $got->{body}) eq $got->{body} ? '' : ' (not a prefix)';
    @d = differences({ %$got, body => $twin->{body}, whole => 'cut' },
                     { %$twin, whole => 'cut' });
    push @d, "a death mid-body: the body is not the start of what was written" if $prefix;
    # (an HTTP/1.0 answer without a length is ended by the close: unframed)
    push @d, "a death mid-body: the response not cut" if $got->{whole} ne $cut && $got->{whole} ne 'unframed';
    $met{'death: cut'}++ unless @d;
    return @d;
}

sub differences {
    my ($got, $want) = @_;
    my @d = CgiDiff::differences($got, $want, 'mod_fcgid');
    # (ended by the close, as the framing allows: as whole as can be told)
    my ($gw, $ww) = map { $_ eq 'unframed' ? 'whole' : $_ } $got->{whole}, $want->{whole};
    push @d, "end: got $got->{whole}, mod_fcgid $want->{whole}" if $gw ne $ww;
    return @d;
}

ok t_cmp(fetch('fcgid', $cases[0])->{body}, "zero\n", 'mod_fcgid runs the responder');

for my $i (0 .. $#cases) {
    my $c = $cases[$i];
    my $ref = fetch('fcgid', $c);
    $met{$_}++ for @{ $c->{why} // [] };
    for my $s (@sides) {
        my $got = fetch($s, $c);
        # httpd's 500 for the application's failure: no more of it is read
        $c->{failed} = 1 if $got->{status} =~ /^HTTP\/1\.1 500 /
            && grep { "$_->[0]: $_->[1]" eq 'Content-Type: text/html; charset=iso-8859-1' } @{ $got->{headers} };
        my @d = judge($c, $i, $got, $ref);
        my $what = "case $i ($c->{method} $c->{proto} $c->{path}, end $c->{end}"
            . ($c->{why} ? ", @{ $c->{why} }" : '') . (@{ $c->{req} } ? ", @{ $c->{req} }" : '') . ")";
        unless (ok t_cmp(join("\n", @d), q{}, "$s $what: as mod_fcgid")) {
            diag "$s $what differs; the application's STDOUT: '" . show(substr $c->{out}, 0, 600) . "'"
                . (length $c->{out} > 600 ? '...' : '');
            diag "  $_" for @d;
        }
    }
}

# An application that refuses a request (END_REQUEST with a protocol
# status, no output): 503 with Retry-After where it says it is overloaded
# or cannot multiplex, 500 for an unknown role (502 outside the drop-in),
# where mod_fcgid, which ignores the status, says 500 for each.
for my $i (0 .. $#refusals) {
    my $c = $refusals[$i];
    my $ref = fetch('fcgid', $c);
    ok t_cmp($ref->{status}, 'HTTP/1.1 500 Internal Server Error', "mod_fcgid: protocol status $c->{pstatus} is 500");
    for my $s (@sides) {
        my $got = fetch($s, $c);
        my %h = map { lc $_->[0] => $_->[1] } @{ $got->{headers} };
        ok t_cmp("$got->{status} | " . ($h{'retry-after'} // '-'),
                 $c->{pstatus} == 3 ? 'HTTP/1.1 500 Internal Server Error | -' : 'HTTP/1.1 503 Service Unavailable | 1',
                 "$s: protocol status $c->{pstatus} and no output");
    }
}

# Every STDERR line, in both error logs (mod_fcgid's "stderr:", our 1050),
# as httpd writes it (a tab as \t, a byte past ASCII as \xHH), but where
# the answer is httpd's 500 for the application's failure (a malformed
# header, one httpd refused, a death): neither reads on once that is
# decided, so lines written after the header may be lost (mod_fcgid stops
# reading at a redirect, too; the drop-in reads such output on to its end).
sub logged { my $l = shift; $l =~ s/\t/\\t/g; $l =~ s/([^\x20-\x7e])/sprintf '\\x%02x', ord $1/ge; $l }
my %log = map { $_ => private_log("$dir/$_") } qw(fcgid ours);
my (@lost, @fcgid_lost, @n);
for my $c (@cases) {
    for my $l (@{ $c->{err} }) {
        push @n, $l;
        my $in_head = $c->{err_in_head}{$l};
        push @lost, $l if index($log{ours}, logged($l)) < 0 && ($in_head || !$c->{failed});
        push @fcgid_lost, $l if index($log{fcgid}, logged($l)) < 0 && $in_head;
    }
}
ok t_cmp(join(', ', map { (split ' ', $_)[0] } @lost), '', 'the drop-in: every STDERR line (' . scalar(@n) . ') in the error log');
ok t_cmp(join(', ', map { (split ' ', $_)[0] } @fcgid_lost), '', 'mod_fcgid: every STDERR line written before the end of the header');
# A protocol status after output: the output stood, said on each path.
ok t_cmp($log{ours}, qr/CGIPLUS3742: FastCGI worker pid \d+ of \S+ ended the request with protocol status \d after its output; the output stands/,
         'direct: a protocol status after output logged (3742)');
ok t_cmp($log{ours}, qr/CGIPLUS3741: FastCGI worker pid \d+ of \S+ ended request \d+ \(\S+\) with protocol status \d after its output; the output stands/,
         'relayed: a protocol status after output logged (3741)');

# Every difference the cases were made to meet was met.
for my $d ('two error pages', 'te', 'cl', 'malformed', 'dies', 'death: cut', 'death: 500') {
    ok t_cmp(($met{$d} // 0) > 0, 1, "met: $d (" . ($met{$d} // 0) . ")");
}
