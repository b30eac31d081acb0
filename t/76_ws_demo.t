# What ./run-demo prints works (issue 24): the demo's configuration made by
# scripts/demo-conf, as run-demo makes it (a copy of examples/ and lib/
# under /tmp, served as the suite's User), a private httpd started as
# run-demo starts it (-DFOREGROUND), and every line of run-demo's own text
# (its URLS heredoc, read from run-demo) tried with a real client: the http
# URLs with raw HTTP/1.1, the ws:// URLs with Debian's python3-websockets,
# the python3 -m websockets command line as printed. A URL added to the text
# is checked by the kind of its script's name; a line of a form the test
# does not know fails.
use strict;
use warnings FATAL => 'all';
use Apache::Test;
use Apache::TestUtil qw(t_cmp);
use lib 't/lib';
use FreePort qw(free_port);
use WsTest qw(ws_py);
use File::Path qw(remove_tree);
use File::Temp qw(tempdir);
use IO::Socket::INET;
use IPC::Open2 qw(open2);
use JSON::PP ();
use POSIX ();
use Time::HiRes qw(sleep);

my $vars = Apache::Test::config()->{vars};
my $top = $vars->{top_dir};

# run-demo's text, as it prints it: between "cat <<URLS" and "URLS".
# (A release tarball has no run-demo: then the test has nothing to check.)
my $src = -e "$top/run-demo" ? do { local (@ARGV, $/) = ("$top/run-demo"); <> } : "cat <<URLS\nURLS\n";
my ($text) = $src =~ /^cat <<URLS\n(.*?)^URLS$/ms or die "no URLS heredoc in run-demo\n";
my @lines = grep { /^\s+\S/ } split /\n/, $text;

# What each line promises: [kind, url, description, POST data].
my @items;
my @unknown;
for my $l (@lines) {
    my ($data, $url, $desc);
    if ($l =~ m{^\s+curl (?:-d '([^']*)' )?(\$base/\S+)\s+(.*)$}) {
        ($data, $url, $desc) = ($1, $2, $3);
    } elsif ($l =~ m{^\s+((?:\$base|ws://127\.0\.0\.1:\$port)/\S+)\s+(.*)$}) {
        ($url, $desc) = ($1, $2);
    } elsif ($l =~ m{^\s+(/usr/bin/python3 -m websockets) (ws://127\.0\.0\.1:\$port/\S+)\s+\(python3-websockets\)$}) {
        push @items, ['command', $2, $1];
        next;
    } else {
        push @unknown, $l;
        next;
    }
    push @items, [undef, $url, $desc, $data];
    # "(also a.py, b.py)": names beside the URL's; "(also /x/y)": paths
    # (with the URL's query).
    if (my ($also) = $desc =~ /\(also ([^)]*)\)/) {
        my ($pre, $query) = $url =~ m{^(.*/)[^/?]*(\?.*)?$};
        my ($root) = $url =~ m{^(\S+?//[^/]+)};
        for my $n (split /,\s*/, $also) {
            push @items, [undef, ($n =~ m{^/} ? $root . $n : $pre . $n) . ($query // ''),
                          "also of $url"];
        }
    }
}
# The kind of check: by the script's name.
for my $i (@items) {
    next if $i->[0];
    my ($name) = $i->[1] =~ m{/([^/?]*)(?:\?.*)?$};
    $name =~ s/\.(py|pl|sh|fcgi)$//;
    $i->[0] = $i->[1] =~ /^ws:/ ? ($name =~ /^ws_(echo|chat)$/ ? "ws_$1" : 'ws')
            : $name =~ /^(hello|counter|echo|env|hello\.txt|chat\.html|cgiplus-status)$/ ? $1
            : $i->[1] =~ m{/(?:form\.p[ly]|php/)\?name=} ? 'form'
            : 'page';
    $i->[0] = 'cgi_counter' if $i->[0] eq 'counter' && $i->[1] =~ m{/cgi/};
}

my $have_py = !system("$WsTest::PYTHON -c 'import websockets' 2>/dev/null");
plan tests => 5 + @items, need { 'python3-websockets' => $have_py, 'run-demo (a checkout)' => -e "$top/run-demo" };

ok t_cmp(join("\n", @unknown), '', "every line of run-demo's text is one the test can check");

# The configuration, as run-demo makes it as root: a copy under /tmp, the
# state directory in it, served as the suite's User.
my $port = free_port();
my $copy = tempdir('cgiplus-demo-test.XXXXXX', DIR => '/tmp');
chmod 0755, $copy;
my $run = "$copy/run";
my $log = "$vars->{t_logs}/ws-demo.error_log";
unlink $log;
{
    local $ENV{APXS} = $vars->{apxs};
    system("$top/scripts/demo-conf", $top, $copy, $run, $port, $vars->{user}, $vars->{group}) == 0
        or die "scripts/demo-conf failed\n";
}
my $syntax = `'$vars->{httpd}' -t -f '$run/httpd.conf' 2>&1`;
ok t_cmp($syntax, qr/Syntax OK/, 'httpd accepts the demo configuration');

# Started as run-demo starts it; its stderr (the demo's ErrorLog) to a file.
my $pid = fork // die "fork: $!";
if (!$pid) {    # _exit: the parent's END must not run here
    open STDOUT, '>>', $log or POSIX::_exit(1);
    open STDERR, '>>', $log or POSIX::_exit(1);
    { no warnings 'exec'; exec $vars->{httpd}, '-f', "$run/httpd.conf", '-DFOREGROUND' }
    POSIX::_exit(1);
}
END {
    if ($pid) {    # only the httpd this test started, by its pid
        kill 'TERM', $pid;
        waitpid $pid, 0;
    }
    remove_tree($copy) if $copy;
}
my $up = 0;
for (1 .. 100) {
    last if ($up = !!IO::Socket::INET->new(PeerAddr => "127.0.0.1:$port", Timeout => 1));
    sleep 0.1;
}
ok t_cmp($up ? 1 : 0, 1, "the demo's httpd listens on 127.0.0.1:$port");

# A second demo on a port in use is refused before anything is written
# (its httpd could not bind, and the URLs would reach this one).
{
    my $other = "$copy/other";
    local $ENV{APXS} = $vars->{apxs};
    my $said = `'$top/scripts/demo-conf' '$top' '$top' '$other' $port 2>&1`;
    my $rc = $? >> 8;
    ok t_cmp("$rc " . (-e "$other/httpd.conf" ? 'written' : 'none') . " $said",
             "1 none run-demo: 127.0.0.1:$port is in use already; CGIPLUS_DEMO_PORT=N ./run-demo picks another port\n",
             'a port in use: refused with a sentence, no configuration written');
}

# The text with run-demo's variables.
my $base = "http://127.0.0.1:$port";
for my $i (@items) {
    $i->[1] =~ s/\$base/$base/g;
    $i->[1] =~ s/\$port/$port/g;
}
ok t_cmp(join(' ', grep { /\$/ } map { $_->[1] } @items), '', 'no URL left with a variable the test does not know');

# One raw HTTP/1.1 exchange: (status, headers with lower-case names, body).
sub http {
    my ($method, $url, $body) = @_;
    my ($path) = $url =~ m{^http://[^/]+(/.*)$} or return (0, {}, "not an http URL: $url");
    my $s = IO::Socket::INET->new(PeerAddr => "127.0.0.1:$port", Timeout => 20)
        or return (0, {}, "connect: $!");
    my $req = "$method $path HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n";
    $req .= "Content-Type: application/x-www-form-urlencoded\r\nContent-Length: "
          . length($body) . "\r\n" if defined $body;
    print $s $req, "\r\n", $body // '';
    my $raw = '';
    while (sysread($s, my $buf, 65536)) { $raw .= $buf }
    my ($head, $b) = split /\r\n\r\n/, $raw, 2;
    my ($st) = ($head // '') =~ m{^HTTP/1\.\d (\d{3})};
    my %h = map { /^([^:]+):\s*(.*)$/ ? (lc $1 => $2) : () } split /\r\n/, $head // '';
    if (($h{'transfer-encoding'} // '') eq 'chunked') {
        my $out = '';
        while ($b =~ s/^([0-9a-fA-F]+)\r\n//) {
            my $n = hex $1;
            last unless $n;
            $out .= substr($b, 0, $n, '');
            $b =~ s/^\r\n//;
        }
        $b = $out;
    }
    return ($st // 0, \%h, $b // '');
}

sub slurp { open my $fh, '<', $_[0] or return "$_[0]: $!"; local $/; <$fh> }

# The ws:// paths of the chat in the text: chat.html must offer each.
my @chats = sort map { $_->[1] =~ m{^ws://[^/]+/([^?]*)} } grep { $_->[0] eq 'ws_chat' } @items;

my $echo_py = <<'PY';
import sys
async def main(url):
    ws = await connect(url)
    got = []
    for m in ["hello from the demo test", b"\x00\xffbinary"]:
        await ws.send(m)
        got.append(await asyncio.wait_for(ws.recv(), 10) == m)
    await ws.close()
    return {"same": got}
done(asyncio.run(main(sys.argv[1])))
PY
my $chat_py = <<'PY';
import sys
async def until(ws, want):
    seen = []
    while want not in seen:
        seen.append(await asyncio.wait_for(ws.recv(), 10))
    return seen
async def main(url):
    a = await connect(url.replace("NAME", "ann"), subprotocols=["chat"])
    await until(a, "* ann joined")
    b = await connect(url.replace("NAME", "bo"), subprotocols=["chat"])
    await until(a, "* bo joined")
    await b.send("hello from bo")
    heard = (await until(a, "bo: hello from bo"))[-1]
    await b.close()
    left = (await until(a, "* bo left"))[-1]
    await a.close()
    return {"heard": heard, "left": left, "proto": a.subprotocol}
done(asyncio.run(main(sys.argv[1])))
PY

for my $i (@items) {
    my ($kind, $url, $desc, $data) = @$i;
    my $name = "$url ($kind)";
    if ($kind eq 'hello') {
        my ($st, undef, $b) = http('GET', $url);
        ok t_cmp("$st $b", "200 Hello from CGIplus\n", "$name: says hello");
    } elsif ($kind eq 'counter' || $kind eq 'cgi_counter') {
        my @got = map { my (undef, undef, $b) = http('GET', $url); [$b =~ /^count=(\d+) pid=(\d+)$/m] } 1 .. 3;
        my @c = map { $_->[0] // 'none' } @got;
        my %pids = map { ($_->[1] // 'none') => 1 } @got;
        if ($kind eq 'counter') {
            ok t_cmp(join(' ', map { $_ - $c[0] } grep { /^\d+$/ } @c) . ' pids ' . keys %pids,
                     '0 1 2 pids 1', "$name: one process, the count rises (@c)");
        } else {
            ok t_cmp(join(' ', @c) . ' pids ' . keys %pids, '1 1 1 pids 3',
                     "$name: plain CGI, a process per request, the count stays 1");
        }
    } elsif ($kind eq 'form') {
        # an unmodified script on a persistent interpreter: it greets the
        # name, and one process answers every time
        my ($want) = $url =~ /\?name=(\w+)$/;
        my @got = map {
            my ($st, undef, $b) = http('GET', $url);
            my ($greeting) = $b =~ /^(Hello, \w+),/m;
            my ($pid) = $b =~ /^pid=(\d+)$/m;
            [$st, $greeting, $pid]
        } 1 .. 3;
        my %pids = map { ($_->[2] // 'none') => 1 } @got;
        ok t_cmp(join(' ', (map { "$_->[0] " . ($_->[1] // 'no greeting') } @got), 'pids', scalar keys %pids),
                 join(' ', ("200 Hello, $want") x 3, 'pids', 1), "$name: the greeting, from one process");
    } elsif ($kind eq 'echo') {
        my $body = $data // "a=1&b=two&c=\x{e9}";
        my ($st, undef, $b) = http('POST', $url, $body);
        ok t_cmp("$st $b", "200 $body", "$name: POST echoes its body");
    } elsif ($kind eq 'env') {
        my ($st, undef, $b) = http('GET', "$url?demo=1");
        my ($path) = $url =~ m{^http://[^/]+(/[^?]*)};
        ok t_cmp(join(' ', $st, $b =~ /^(GATEWAY_INTERFACE=\S+|QUERY_STRING=\S*|SCRIPT_NAME=\S+)$/mg),
                 "200 GATEWAY_INTERFACE=CGI/1.1 QUERY_STRING=demo=1 SCRIPT_NAME=$path",
                 "$name: the CGI environment");
    } elsif ($kind eq 'hello.txt') {
        my ($st, undef, $b) = http('GET', $url);
        ok t_cmp("$st $b", '200 ' . slurp("$top/examples/static/hello.txt"), "$name: the file's content");
    } elsif ($kind eq 'cgiplus-status') {
        my ($st, $h, $b) = http('GET', $url);
        my $j = eval { JSON::PP::decode_json($b) };
        ok t_cmp(join(' ', $st, ref $j, ref($j) && ref $j->{pools} ? 'pools' : 'no pools'),
                 '200 HASH pools', "$name: JSON with the pools");
    } elsif ($kind eq 'chat.html') {
        my ($st, $h, $b) = http('GET', $url);
        my @offered = sort $b =~ /<option value="([^"]+)">/g;
        my $builds = $b =~ /new WebSocket\(url/ && $b =~ /"\/" \+ \$\("lang"\)\.value \+\s*"\?name="/;
        ok t_cmp(join(' ', $st, $h->{'content-type'} // '', $builds ? 'ws://host/PATH?name=' : 'no URL', @offered),
                 join(' ', 200, 'text/html', 'ws://host/PATH?name=', @chats),
                 "$name: the page opens ws://host/PATH?name=NAME for each chat in the text");
    } elsif ($kind eq 'ws_echo') {
        my $r = ws_py($echo_py, $url);
        ok t_cmp(join(',', map { $_ ? 1 : 0 } @{ $r->{same} // [] }), '1,1', "$name: text and binary echo");
    } elsif ($kind eq 'ws_chat') {
        my $r = ws_py($chat_py, $url);
        ok t_cmp(join('|', map { $_ // 'none' } @$r{qw(heard left proto)}), 'bo: hello from bo|* bo left|chat',
                 "$name: ann hears bo's message and leave (broadcast)");
    } elsif ($kind eq 'command') {
        # As typed at a terminal: the line, then stdin stays open until
        # the answer came (at end of input the client closes at once).
        my $cpid = open2(my $out, my $in, "timeout 20 $desc $url 2>&1");
        print $in "typed by the demo test\n";
        $in->flush;
        my $seen = '';
        while (defined(my $l = <$out>)) {
            $seen .= $l;
            last if $l =~ /< typed by the demo test$/;
        }
        close $in;
        waitpid $cpid, 0;
        ok t_cmp($seen, qr/< typed by the demo test\n\z/, "'$desc $url': the line typed comes back");
    } elsif ($kind eq 'ws') {
        my $r = ws_py('import sys
async def main(url):
    ws = await connect(url); await ws.close(); return {"open": 1}
done(asyncio.run(main(sys.argv[1])))', $url);
        ok t_cmp($r->{open} // 0, 1, "$name: a WebSocket opens (no check of what it says yet)");
    } else {
        my ($st, undef, $b) = http('GET', $url);
        ok t_cmp($st . (length $b ? ' body' : ' empty'), '200 body', "$name: 200 with a body (no finer check yet)");
    }
}
