# A randomized differential test of how a script's output is answered:
# a few hundred outputs (CGI header block and body) made from a grammar
# with a fixed seed, each printed by one script (t/htdocs/cgidiff/out.pl)
# under mod_cgid (/cgid-diff/) and in CGIplusCompat scopes (/compat-diff/
# plain CGI, /compat-diff-plus/ persistent, /compat-diff-engine/ the Perl
# engine), each with an ErrorDocument 500 (a file) and 404 (a text). The
# status line as sent, every header but Date and the framing
# (Content-Length, Transfer-Encoding: httpd picks them from timing) and
# the body must be mod_cgid's, but for the differences docs/cgi-compat.md
# names, which are expected here case by case (expect() below): a NUL in
# the header (refused: 500, where mod_cgi's scanner cuts the line there)
# and Script-Control (WASD's header: applied and taken out; its
# X-location-as-is checked on its own at the end). Then a few odd header
# names under HttpProtocolOptions Unsafe.
# Found by it (session 55): a header name that is no token, or a control
# character in a value, was refused by the module (a plain 500) where
# httpd's header filter refuses it under mod_cgid after the scanner took
# the script's Status (a 500 whose page says "Additionally, a 302 Found
# error..."); a Range request got 206 (or 416) where the whole response
# was there before the header, by timing, where mod_cgid answers 200; a
# Status line before a malformed line or the output's end was lost
# ("Status: 500 Oops": mod_cgid's status line is "500 Oops").
use strict;
use warnings FATAL => 'all';
use Apache::Test;
use Apache::TestUtil qw(t_cmp);
use Apache::TestRequest ();
use File::Path qw(make_path remove_tree);
use lib 't/lib';
use RawHTTP qw(raw_request);
use CgiDiff qw(show compared differences);

# CGIPLUS_DIFF_SEED and CGIPLUS_DIFF_CASES explore other cases by hand.
my $SEED = $ENV{CGIPLUS_DIFF_SEED} // 3939;
my $NCASES = $ENV{CGIPLUS_DIFF_CASES} // 400;
my @scopes = ('/compat-diff', '/compat-diff-plus', '/compat-diff-engine');

srand $SEED;
sub pick { $_[int rand @_] }
sub chance { rand() < $_[0] }

my @ends = ("\n", "\r\n", "\r\r\n");

# The cases a Location may name: no NUL in their chain.
my @nul_free = (0);

# One case: { out => bytes, method, proto, req => [name, value...],
# sizes => [write sizes] }.
sub gen_case {
    my ($n) = @_;     # its number
    my %c = (method => chance(0.2) ? 'HEAD' : 'GET', proto => chance(0.1) ? 'HTTP/1.0' : 'HTTP/1.1',
             req => []);
    my @h;       # header lines, no line end
    if (chance(0.45)) {
        my $code = chance(0.7)
            ? pick(qw(200 201 202 204 206 301 302 303 304 307 308 400 401 403 404 405 410 412 416 418 422
                      500 501 502 503 504 599))
            : pick(qw(099 100 103 199 299 399 499 600 999 0200 20 2000 abc 2OO -200 +200), '', ' ', '200.0');
        my $reason = pick('', '', ' OK', ' Not Found', ' Fine', '  lots  of   space ', " tab\there",
                          " \xc3\xbcml\xc3\xa4ut", ' ', "\t", ' I\'m a teapot', ' x' x 50);
        my $name = pick('Status', 'Status', 'status', 'STATUS', 'StAtUs');
        my $sep = pick(': ', ': ', ':', ':   ', ":\t");
        push @h, "$name$sep$code$reason";
        push @h, "Status: 200 Again" if chance(0.05);
    }
    if (chance(0.2)) {
        my $loc = pick('http://example.com/a', 'https://example.org/p?q=1&r=%20#f', '/cgidiff/target.txt',
                       '/cgidiff/target.txt?x=1&y=2', '/cgidiff/nothing-here', '@SELF@out.pl?0',
                       '@SELF@out.pl', '@SELF@out.pl?0#frag', 'relative.txt', '', 'ftp://x/y',
                       '/cgidiff/target.txt#frag', '//example.net/x', '/cgidiff/target.txt  ',
                       "\t/cgidiff/target.txt", '/cgidiff/', '/cgidiff/../cgidiff/target.txt');
        # another case, which may redirect in its turn (none whose chain
        # has a NUL in a header: expect() looks at this case's only)
        $loc = '@SELF@out.pl?' . pick(@nul_free) if $n > 2 && chance(0.2);
        $loc = "\@SELF\@out.pl?$n" if chance(0.03);     # itself: httpd's limit of 10
        push @h, pick('Location', 'location') . ": $loc";
        push @h, 'Location: http://example.com/second' if chance(0.1);
    }
    if (chance(0.8)) {
        my @ct = ('text/plain', 'text/html; charset=UTF-8', 'TEXT/HTML', 'application/octet-stream',
                  'image/png', 'text/plain;charset=ISO-8859-1', '', 'application/json ',
                  'multipart/x-mixed-replace; boundary=x', 'text/plain; charset="utf-8"');
        push @h, pick('Content-Type', 'Content-Type', 'content-type', 'Content-type', 'CONTENT-TYPE')
            . ': ' . pick(@ct);
        push @h, 'Content-Type: ' . pick(@ct) if chance(0.1);
    }
    if (chance(0.25)) {
        push @h, 'Set-Cookie: ' . pick('a=1; Path=/', 'b=2; HttpOnly', 'c=; Expires=Thu, 01 Jan 1970 00:00:00 GMT',
                                       'a=3', 'd="q v"; SameSite=Lax', 'e=' . ('z' x 300))
            for 1 .. 1 + int rand 4;
    }
    if (chance(0.25)) {
        my $n = pick('X-Rep', 'Cache-Control', 'Vary', 'Link', 'Warning', 'Accept-Ranges', 'Content-Language',
                     'Via', 'Allow');
        push @h, "$n: " . pick('one', 'no-cache', 'Accept', '<http://e/x>; rel=next', 'two, three', '')
            for 1 .. 2 + int rand 2;
    }
    if (chance(0.2)) {
        my $n = pick('X_Under', 'x-lower', 'X-UPPER', 'X.Dot', 'X~Tilde', 'X!Bang', 'X Space', 'X(Paren)',
                     'X@At', "X\x7fDel", "X\x80High", 'X"Quote', 'X/Slash', 'X=Eq', 'X[Br]', '', "X\tTab",
                     'X{Brace}', 'X,Comma', 'X;Semi', 'X?Q', '1Digit', "X\x01Ctl");
        push @h, "$n: odd name";
    }
    if (chance(0.2)) {
        push @h, pick('X-Ws :v', 'X-Ws:v', "X-Ws:  \t v", 'X-Ws: v   ', "X-Ws: v\t", "X-Ws: v \t ", "X-Ws\t: v",
                      'X-Ws:  ', "X-Ws: a  b\t\tc", 'Status :404', 'Location :/cgidiff/target.txt',
                      'Content-Type : text/html', "Content-Length\t: 3", 'Set-Cookie :a=1');
    }
    push @h, pick('X-Empty:', 'X-Empty: ', "X-Empty:\t") if chance(0.1);
    if (chance(0.05)) {
        push @h, pick("X-Cr: a\rb", "X-Cr: v\rX-After: w", "X-Cr: \r", "X-Cr: v\r\r", "X-Ctl: a\x01b",
                      "X-Esc: \e[0m", "X-Del: a\x7f", "X-Vt: \x0b");
    }
    if (chance(0.08)) {
        # the whole line's length, near httpd's MAX_STRING_LEN (8192)
        my $len = pick(8180, 8188, 8189, 8190, 8191, 8192, 8193, 8200, 9000, 16000);
        my $v = 'a' x ($len - 8);
        substr($v, 8190 - 8, 3, ': b') if $len > 8200 && chance(0.5);
        push @h, "X-Long: $v";
    }
    my $body = pick('', '', "hello\n", "line1\r\nline2\r\n", "no newline at end", "\r\n", "\n\n",
                    "X-Header-Like: yes\n\nmore\n", 'x' x 5000, "\x00\x01\x02\xff\xfe" x 3);
    if (chance(0.15)) { $body = join '', map { chr int rand 256 } 1 .. 1 + int rand 3000 }
    if (chance(0.04)) { $body = join '', map { chr(97 + $_ % 26) } 1 .. 20000 + int rand 180000 }
    if (chance(0.15)) {
        my $len = length $body;
        my $v = pick($len, $len, $len + 5, $len > 3 ? $len - 3 : 0, 'abc', '-1', " $len ", "$len, $len", '');
        push @h, "Content-Length: $v";
        push @h, 'Content-Length: ' . pick($len, $len + 1) if chance(0.3);
    }
    if (chance(0.06)) {
        my $te = pick('chunked', 'identity', 'gzip', 'chunked, gzip', 'CHUNKED');
        push @h, "Transfer-Encoding: $te";
        $body = sprintf("%x\r\n%s\r\n0\r\n\r\n", length $body, $body) if $te =~ /^chunked$/i && chance(0.5)
            && length $body;
    }
    my @dates = ('Tue, 01 Jan 2002 00:00:00 GMT', 'Sat, 01 Jan 2000 00:00:00 GMT', 'Mon, 01 Jan 2001 00:00:00 GMT');
    my $lm = chance(0.2) ? pick(@dates, 'garbage date', '') : undef;
    my $et = chance(0.2) ? pick('"abc"', 'W/"abc"', '"x y"', 'abc', '') : undef;
    push @h, "Last-Modified: $lm" if defined $lm;
    push @h, "ETag: $et" if defined $et;
    if ((defined $lm || defined $et) && chance(0.7) || chance(0.05)) {
        my @r;
        push @r, 'If-Modified-Since' => pick(@dates) if chance(0.5);
        push @r, 'If-None-Match' => pick('"abc"', 'W/"abc"', '"zzz"', '*') if chance(0.4);
        push @r, 'If-Match' => pick('"abc"', '"zzz"', '*') if chance(0.15);
        push @r, 'If-Unmodified-Since' => pick(@dates) if chance(0.15);
        push @r, 'Range' => pick('bytes=0-3', 'bytes=2-', 'bytes=-2', 'bytes=0-1,3-4') if chance(0.15);
        push @r, 'If-Range' => pick(@dates, '"abc"') if chance(0.1);
        $c{req} = \@r;
    }
    if (chance(0.3)) {
        push @h, pick('Content-Encoding: gzip', 'Content-Language: de', 'Expires: Thu, 01 Jan 1970 00:00:00 GMT',
                      'Refresh: 5; url=/', 'Server: evil/1.0', 'Date: Mon, 01 Jan 2001 00:00:00 GMT',
                      'Connection: close', 'Connection: keep-alive', 'Keep-Alive: timeout=1',
                      'Content-Range: bytes 0-3/10', 'Accept-Ranges: bytes', 'Content-Disposition: inline',
                      'X-Powered-By: fuzz', 'Retry-After: 7', 'Age: 3', 'Pragma: no-cache',
                      'Content-Location: /x', 'WWW-Authenticate: Basic realm="r"', 'Upgrade: h2c',
                      'Trailer: X-T', 'Proxy-Authenticate: Basic', 'Content-MD5: abc==',
                      'X-CGIplus-Pad: ' . ('p' x 100), 'X-CGIplus-File: /etc/hostname',
                      'Script-Control: no-abort', 'Script-Control: X-stream-mode');
    }
    # a big header block, as a real application's can be
    push @h, map { "X-Many-$_: " . ('m' x 1000) } 1 .. 20 + int rand 80 if chance(0.03);
    if (chance(0.04)) {
        push @h, pick('Garbage line', ' folded continuation', "\tfolded tab", ': no name', "X-Nul: a\0b",
                      "\0", 'Status 200');
    }
    # a line's position does not matter to httpd but for repeats; shuffle some
    if (chance(0.3)) {
        for my $i (reverse 1 .. $#h) { my $j = int rand($i + 1); @h[$i, $j] = @h[$j, $i] }
    }
    my $mode = rand;
    my $fixed = pick(@ends);
    my $eol = sub { $mode < 0.4 ? "\n" : $mode < 0.7 ? "\r\n" : $mode < 0.9 ? pick(@ends) : $fixed };
    my $out = '';
    $out .= $eol->() if chance(0.02);    # a blank first line: no header at all
    $out .= $_ . $eol->() for @h;
    my $end = rand;
    if ($end < 0.03) {               # the output ends inside the header
    } elsif ($end < 0.05) {
        $out .= 'X-Cut: half';
    } else {
        $out .= $eol->() . $body;
    }
    $out = '' if chance(0.01);
    $c{out} = $out;
    # a few cases write in pieces (never across @SELF@, which the script
    # replaces first)
    if (chance(0.2) && $out !~ /\@SELF\@/ && length $out > 4) {
        my @cut = sort { $a <=> $b } map { 1 + int rand(length($out) - 1) } 1 .. 1 + int rand 2;
        my $prev = 0;
        $c{sizes} = [map { my $n = $_ - $prev; $prev = $_; $n } @cut];
    } else {
        $c{sizes} = [];
    }
    return \%c;
}

# Case 0: where "@SELF@out.pl?0" redirects; case 1: a malformed header,
# the 500 of a refused one.
my @cases = map { { out => $_, method => 'GET', proto => 'HTTP/1.1', req => [], sizes => [] } }
    "Content-Type: text/plain\n\nzero\n", "Garbage line\n\n";
for my $n (2 .. $NCASES - 1) {
    push @cases, gen_case($n);
    my ($to) = $cases[-1]{out} =~ /out\.pl\?(\d+)/;
    push @nul_free, $n if $cases[-1]{out} !~ /\0/ && (!defined $to || grep { $_ == $to } @nul_free);
}

# Script-Control: X-location-as-is (cgiplus-wsgi's): the 200 with its
# Location goes to the client as it is, in a compat scope too, where
# mod_cgid redirects.
my @asis = map { { out => "Status: 200\nLocation: $_\nScript-Control: X-location-as-is\n"
                          . "Content-Type: text/plain\n\nas is\n",
                   method => 'GET', proto => 'HTTP/1.1', req => [], sizes => [], loc => $_ } }
    'http://example.com/a', '/cgidiff/target.txt';
push @cases, @asis;

# Under HttpProtocolOptions Unsafe (a virtual host of the same scopes):
# the header names httpd's filter then lets through, and those it still
# refuses, as under mod_cgid.
my $unsafe_hp = '127.0.0.1:' . Apache::Test::config()->port('cgiplus_diff_unsafe');
my @unsafe = map { { out => $_, method => 'GET', proto => 'HTTP/1.1', req => [], sizes => [], hp => $unsafe_hp } }
    "Status: 404\nX/Slash: v\n\nbody\n", "X\"Quote: v\nContent-Type: text/plain\n\nbody\n",
    "Status: 302\nX Space: v\n\nbody\n", "Status: 302\nX-Ctl: a\x01b\n\nbody\n";
push @cases, @unsafe;

# The cases, where the script reads them (as httpd's User: world-readable).
my $dir = Apache::Test::vars('documentroot') . '/cgidiff';
my $tmp = "$dir/cases.new.$$";
remove_tree($tmp);
make_path($tmp, { mode => 0755 });
for my $i (0 .. $#cases) {
    open my $fh, '>:raw', "$tmp/$i" or die "$tmp/$i: $!";
    print $fh join(' ', @{ $cases[$i]{sizes} }), "\n", $cases[$i]{out};
    close $fh or die $!;
    chmod 0644, "$tmp/$i";
}
remove_tree("$dir/cases");
rename $tmp, "$dir/cases" or die "rename: $!";

plan tests => 1 + $NCASES * @scopes + @asis * (1 + 3 * @scopes) + 1 + @unsafe * @scopes;

my $hp = Apache::TestRequest::hostport();
# The response as compared (CgiDiff's): status line, headers, body, each
# with the scope's own prefix written as PREFIX.
sub fetch {
    my ($prefix, $i, $as) = @_;
    my $c = $as // $cases[$i];     # the request as case $as makes it
    return compared(raw_request($c->{hp} // $hp, $c->{method}, "$prefix/out.pl?$i", $c->{req}, undef,
                                { proto => $c->{proto} }), $prefix);
}

# What a compat scope must answer for a case, given mod_cgid's answer:
# mod_cgid's, but for the differences docs/cgi-compat.md documents.
sub expect {
    my ($c, $scope, $want) = @_;
    # A NUL in the header: mod_cgi's scanner cuts the line there (a line
    # of a NUL alone ends the header); refused as a malformed header.
    my ($head) = $c->{out} =~ /\A((?:[^\n]*\n)*?)\r*\n/;
    return fetch('/cgid-diff', 1, $c) if ($head // $c->{out}) =~ /\0/;
    # Script-Control, WASD's header, is applied and taken out in every
    # scope (docs/PROTOCOL.md, "Script-Control")
    return { %$want, headers => [grep { lc $_->[0] ne 'script-control' } @{ $want->{headers} }] };
}

sub diag { print STDERR map { "# $_\n" } split /\n/, join "", @_ }

# the scopes' ErrorDocument 500 (a file) answers a malformed header
ok t_cmp(fetch('/cgid-diff', 1)->{body}, "error document 500\n", "mod_cgid's 500 is the ErrorDocument");

for my $i (0 .. $NCASES - 1) {
    my $c = $cases[$i];
    my $ref = fetch('/cgid-diff', $i);
    for my $s (@scopes) {
        my $got = fetch($s, $i);
        my @d = differences($got, expect($c, $s, $ref));
        my $what = "case $i ($c->{method} $c->{proto}" . (@{ $c->{req} } ? ", @{ $c->{req} }" : '') . ")";
        unless (ok t_cmp(join("\n", @d), q{}, "$s $what: as mod_cgid")) {
            diag "$s $what differs; the script's output: '" . show(substr $c->{out}, 0, 600) . "'"
                . (length $c->{out} > 600 ? '...' : '');
            diag "  $_" for @d;
        }
    }
}

for my $i ($NCASES .. $NCASES + $#asis) {
    my $loc = $cases[$i]{loc};
    my $ref = fetch('/cgid-diff', $i);
    ok t_cmp($ref->{status}, $loc =~ m{^/} ? 'HTTP/1.1 200 OK' : 'HTTP/1.1 302 Found',
             "mod_cgid redirects for Location $loc with X-location-as-is");
    for my $s (@scopes) {
        my $got = fetch($s, $i);
        my %h = map { lc $_->[0] => $_->[1] } @{ $got->{headers} };
        ok t_cmp("$got->{status} | " . ($h{location} // '(none)') . " | $got->{body}",
                 "HTTP/1.1 200 OK | $loc | as is\n", "$s X-location-as-is: the 200 as it is");
        ok t_cmp($h{'script-control'}, undef, "$s: Script-Control taken out");
        ok t_cmp($h{'content-type'}, 'text/plain', "$s: the script's Content-Type");
    }
}

my $first = $NCASES + @asis;
ok t_cmp(fetch('/cgid-diff', $first)->{status}, 'HTTP/1.1 404 Not Found',
         'HttpProtocolOptions Unsafe: mod_cgid sends X/Slash');
for my $i ($first .. $#cases) {
    my $c = $cases[$i];
    my $ref = fetch('/cgid-diff', $i);
    for my $s (@scopes) {
        my @d = differences(fetch($s, $i), $ref);
        unless (ok t_cmp(join("\n", @d), q{}, "$s HttpProtocolOptions Unsafe, '" . show($c->{out}) . "': as mod_cgid")) {
            diag "  $_" for @d;
        }
    }
}
