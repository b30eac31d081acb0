# A script author's mistakes the runner reports, each logged with its id
# (httpd's main error log: the runner's stderr) while the requests go on:
# - lines on stderr while no request is active (a warning at start-up,
#   before the first accept; one after the request ended): 2011, naming
#   the script and pid; the requests are served, once each;
# - a callout line over 4096 bytes: answered "400 callout line too long"
#   (2031) and the request goes on, later callouts answered;
# - an upgrade to a script that does not speak WebSocket: no HELLO within
#   10 s, 501 (2815), 501 at once for the next upgrade, and the deploy of
#   a WebSocket script ends it (101); what that one writes on stdout is
#   discarded (2812), its stderr logged (2813); one that ignores SIGTERM
#   is killed after CGIplusKillGrace (2817); one that dies at its start
#   puts the pool in a crash-loop backoff (2803).
use strict;
use warnings FATAL => 'all';
use Apache::Test;
use Apache::TestUtil;
use IO::Socket::INET;
use Time::HiRes qw(sleep time);
use lib 't/lib';
use PrivateHttpd qw(private_conf private_start private_dir private_log private_wait_log
                    private_get resp_code resp_pid resp_body);
use FreePort qw(free_port);

plan tests => 25;

my $vars = Apache::Test::config()->{vars};
my $top = $vars->{top_dir};
my $dir = private_dir('err-script');
mkdir "$dir/s" or die "$dir/s: $!";
chmod 0755, "$dir/s";
sub put {
    my ($name, $text) = @_;
    open my $fh, '>', "$dir/s/$name.new" or die "$name: $!";
    print $fh $text;
    close $fh;
    chmod 0755, "$dir/s/$name.new";
    rename "$dir/s/$name.new", "$dir/s/$name" or die "rename $name: $!";
}

put('noisy.pl', <<"PL");
#!/usr/bin/perl
use strict;
use lib '$top/lib/perl';
use CGIplus;
\$| = 1;
print STDERR "noisy-startup-marker\\n";
my \$n = 0;
while (CGIplus::accept()) {
    \$n++;
    print "Content-Type: text/plain\\nX-Pid: \$\$\\n\\n";
    if ((\$ENV{QUERY_STRING} // '') eq 'long') {
        print 'long: ', CGIplus::callout('NOOP: ' . ('x' x 5000)), "\\n";
        print 'next: ', CGIplus::callout('NOOP: short'), "\\n";
    }
    print "n=\$n\\n";
    CGIplus::finish();
    # (late enough for the runner to read it with the worker idle)
    select undef, undef, undef, 0.3;
    print STDERR "noisy-after-marker \$n \$ENV{QUERY_STRING}\\n";
}
PL
put('late.pl', do { open my $fh, '<', "$dir/s/noisy.pl" or die $!; local $/; <$fh> });
# a script that never says HELLO (a long start, a plain script waiting on
# its stdin): not a WebSocket script
put('ws.pl', "#!/bin/sh\nsleep 30\n");

my $port = free_port();
open my $cf, '>', "$dir/httpd.conf" or die "httpd.conf: $!";
print $cf private_conf($dir, $port, ['alias'], <<"CONF");
LogLevel info cgiplus:info
CGIplusKillGrace 1s
Alias /s/ $dir/s/
Alias /r/ $dir/s/
<Location /r/>
    CGIplusDirect off
</Location>
<Directory $dir/s>
    Require all granted
    Options +ExecCGI
    SetHandler cgiplus-script
    CGIplusMaxWorkers 1
</Directory>
CONF
close $cf;
ok t_cmp(private_start("$dir/httpd.conf", $port) ? 1 : 0, 1, 'the private httpd started');


# stderr outside a request: before the first accept, the worker was
# started for a request, under which the line is logged (1050); after a
# request ended, read while the worker is idle: the runner's own (2011),
# on the direct path too, where the idle worker's stderr waited for the
# child of its next request, which logged it as that request's.
for my $p (qw(r s)) {
    my $r1 = private_get($port, "/$p/late.pl?$p");
    my $lpid = resp_pid($r1);
    ok t_cmp(private_wait_log($dir, qr{CGIPLUS2011: \Q$dir\E/s/late\.pl \(pid $lpid\): noisy-after-marker \d+ $p}), 1,
             "/$p/: a line after a request ended: logged (2011), naming the script and pid");
}
my $r1 = private_get($port, '/r/late.pl');
my $r2 = private_get($port, '/s/late.pl');
ok t_cmp(resp_code($r1) . ' ' . resp_body($r1) . resp_code($r2) . ' ' . resp_body($r2), "200 n=3\n200 n=4\n",
         'a script that writes on stderr outside its requests: each request served, once');
ok t_cmp(private_wait_log($dir, qr{CGIPLUS1050: stderr from \Q$dir\E/s/late\.pl \(pid \d+\): noisy-startup-marker}), 1,
         'its line before the first accept: logged under the request it was started for (1050)');
# (a line written just before the worker's next request, under 1 s after
# its last, may still be read as that request's)
ok t_cmp(private_log($dir) =~ /CGIPLUS1050: [^\n]*late\.pl[^\n]*noisy-after-marker \d+ [rs]$/m ? 1 : 0, 0,
         'neither line after a request is logged under the next one');
my $pid = resp_pid(private_get($port, '/s/noisy.pl'));

# A callout line too long, relayed (the runner answers and logs it) and on
# the direct path (the module answers it). It used to pass when the line
# came whole in one read.
for my $p (qw(r s)) {
    my $r = private_get($port, "/$p/noisy.pl?long");
    ok t_cmp(resp_code($r) . ' ' . (resp_body($r) =~ s/n=\d+\n\z//r), "200 long: 400 callout line too long\nnext: 200 NOOP\n",
             "/$p/: a callout line over 4096 bytes: answered 400, the next callout answered");
}
ok t_cmp(private_wait_log($dir, qr{CGIPLUS2031: worker pid \d+ of \Q$dir\E/s/noisy\.pl wrote a callout line over 4096 bytes; ignored}), 1,
         'relayed: logged (2031)');
my $r4 = private_get($port, '/s/noisy.pl');
ok t_cmp(resp_code($r4) . ' ' . resp_body($r4) . resp_pid($r4), "200 n=4\n$pid", 'the same worker serves the next request, once');

# WebSocket upgrades: the status line of the answer
sub upgrade {
    my ($path) = @_;
    $path //= '/s/ws.pl';
    my $s = IO::Socket::INET->new(PeerAddr => "127.0.0.1:$port", Timeout => 30) or return 0;
    print $s "GET $path HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
           . "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n";
    my $line = <$s> // '';
    my $code = $line =~ m{^HTTP/1\.1 (\d+)} ? $1 : 0;
    my $retry = '-';
    while (defined(my $h = <$s>)) {
        last if $h =~ /^\r?\n\z/;
        $retry = $1 if $h =~ /^Retry-After: (\d+)/i;
    }
    return wantarray ? ($code, $retry) : $code;
}
my $t0 = time;
my $code = upgrade();
my $took = time - $t0;
ok t_cmp($code, 501, 'an upgrade to a script that does not speak WebSocket: 501');
ok t_cmp($took > 9 && $took < 20 ? 1 : $took, 1, sprintf('after its 10 s for a HELLO (%.1f s)', $took));
ok t_cmp(private_wait_log($dir, qr{CGIPLUS2815: \Q$dir\E/s/ws\.pl does not speak WebSocket: worker pid \d+ said no HELLO on its channel \(descriptor 3\) within 10 s}), 1,
         'logged (2815)');
$t0 = time;
$code = upgrade();
ok t_cmp("$code " . (time - $t0 < 2 ? 'at once' : 'late'), '501 at once', 'the next upgrade: 501 at once');

# The deploy of a WebSocket script.
sleep 1.1;
put('ws.pl', <<"PY");
#!/usr/bin/python3
import sys
sys.path.insert(0, '$top/lib/python')
import signal
import cgiplus
signal.signal(signal.SIGTERM, signal.SIG_IGN)   # (its stop, below)
sys.stderr.write("ws-stderr-marker\\n")
sys.stderr.flush()
print("ws-stdout-marker", flush=True)
ws = cgiplus.WebSocket()
for ev in ws.events():
    if ev.type == "open":
        ws.accept(ev.conn)
PY
ok t_cmp(upgrade(), 101, 'the deploy of a WebSocket script: upgraded (101)');
ok t_cmp(private_wait_log($dir, qr{CGIPLUS2813: stderr from WebSocket worker pid \d+ of \Q$dir\E/s/ws\.pl: ws-stderr-marker}), 1,
         'its stderr line: logged (2813)');
ok t_cmp(private_wait_log($dir, qr{CGIPLUS2812: WebSocket worker pid \d+ of \Q$dir\E/s/ws\.pl wrote on stdout \(discarded: its messages go on its channel\): ws-stdout-marker}), 1,
         'what it wrote on stdout: discarded, said (2812)');

# A deploy stops that worker: it ignores SIGTERM, and is killed after
# CGIplusKillGrace (2817); the new one takes upgrades.
sleep 1.1;
put('ws.pl', <<"PY");
#!/usr/bin/python3
import sys
sys.path.insert(0, '$top/lib/python')
import cgiplus
ws = cgiplus.WebSocket()
for ev in ws.events():
    if ev.type == "open":
        ws.accept(ev.conn)
PY
ok t_cmp(upgrade(), 101, 'the next deploy: upgraded (101)');
ok t_cmp(private_wait_log($dir, qr{CGIPLUS2817: WebSocket worker pid \d+ of \Q$dir\E/s/ws\.pl ignored SIGTERM}), 1,
         'the old worker ignored SIGTERM: killed, said (2817)');

# A WebSocket script that dies at its start (a module it imports is
# missing): its traceback is logged (2813), the pool backs off after two
# in a row (2803), upgrades meanwhile 503 with Retry-After, the fixed file
# upgraded at once.
put('wsbad.py', "#!/usr/bin/python3\nimport cgiplus_no_such_module\n");
$t0 = time;
my @codes = map { join ' ', upgrade('/s/wsbad.py') } 1 .. 3;
$took = time - $t0;
ok t_cmp(join(', ', map { s/ \d+$/ retry/r } @codes), '503 retry, 503 retry, 503 retry',
         "a script that dies at its start: 503 with Retry-After (@codes)");
# (they waited queue_wait, 10 s each, and httpd's 1061 said the queue was full)
ok t_cmp($took < 6 ? 1 : $took, 1, sprintf('at once, as a request pool in its backoff answers (%.1f s)', $took));
ok t_cmp(private_wait_log($dir, qr{CGIPLUS1069: workers of \Q$dir\E/s/wsbad\.py keep ending before serving a request: the runner backs off starting new ones; answering 503}), 1,
         'httpd says why (1069)');
ok t_cmp(private_wait_log($dir, qr{CGIPLUS2813: stderr from WebSocket worker pid \d+ of \Q$dir\E/s/wsbad\.py: ModuleNotFoundError: No module named 'cgiplus_no_such_module'}), 1,
         'its error: logged (2813)');
ok t_cmp(private_wait_log($dir, qr{CGIPLUS2803: \Q$dir\E/s/wsbad\.py: 2 WebSocket workers in a row ended before saying HELLO; no new worker for \d+ ms}), 1,
         'the crash loop: backed off (2803)');
sleep 1.1;
put('wsbad.py', do { open my $fh, '<', "$dir/s/ws.pl" or die $!; local $/; <$fh> });
ok t_cmp(upgrade('/s/wsbad.py'), 101, 'fixed: upgraded (101)');
