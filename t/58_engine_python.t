# Issue 22, part 1: the Python engine (CGIplusEngine python) runs unmodified
# CGI scripts persistently: one engine process serves every script of its
# scope; each file is compiled once and run per request in a fresh
# __main__ namespace with a fresh sys.argv and os.environ, sys.stdin on its
# body and sys.stdout on its response, in the script's directory; sys.exit() ends the request, not
# the engine; modules a script imports stay loaded; a changed file is
# compiled again; an engine past CGIplusEngineMaxRSS is replaced after its
# request. On the direct path and relayed; as plain CGI too; mod_cgid is the
# reference for what a script answers (cgi.FieldStorage, uploads).
use strict;
use warnings FATAL => 'all';
use Apache::Test;
use Apache::TestUtil;
use Digest::MD5 qw(md5_hex);
use lib 't/htdocs/apps', 't/htdocs/pool/lib';
use PoolTest qw(status script_requests wait_for);
use AppTest qw(write_file curl url);

plan tests => 90;

my $vars = Apache::Test::config()->{vars};
my $dir = "$vars->{documentroot}/engine/python";
sub kv { my %h = $_[0] =~ /^(\w+)=(.*)$/mg; \%h }

for my $p (qw(epy epyr)) {
    my ($code, $h, $body) = curl(url("/$p/hello.py"));
    ok t_cmp("$code $body", "200 hello\n", "/$p: hello");
    (undef, undef, $body) = curl(url("/$p/env.py"));
    my $e1 = kv($body);
    (undef, undef, $body) = curl('--data-binary', 'posted body', url("/$p/env.py?a+b%20c+d%3Be"));
    my $e2 = kv($body);
    (undef, undef, $body) = curl(url("/$p/hello.py"));
    (undef, undef, $body) = curl(url("/$p/env.py?x=7"));
    my $e3 = kv($body);
    ok t_cmp("$e2->{pid} $e3->{pid}", "$e1->{pid} $e1->{pid}", "/$p: one engine pid across requests and scripts");
    ok t_cmp("$e1->{runs} $e2->{runs} $e3->{runs}", '1 1 1', "/$p: a fresh __main__ namespace per request");
    ok t_cmp($e2->{helper_hits}, $e1->{helper_hits} + 1, "/$p: an imported module stays loaded");
    ok t_cmp($e2->{leak}, 'no', "/$p: os.environ fresh: what the previous run set is gone");
    ok t_cmp($e2->{signals}, 'timer 0 usr1 default',
             "/$p: the previous run's SIGUSR1 handler and its timer are gone");
    ok t_cmp($e2->{argv}, 'a|b c|d\;e', "/$p: sys.argv from an ISINDEX query, as mod_cgi");
    ok t_cmp($e3->{argc}, 0, "/$p: no arguments for a query with '='");
    ok t_cmp($e2->{body}, 'posted body', "/$p: sys.stdin is this request's body");
    ok t_cmp($e3->{body}, '', "/$p: and ends with it");
    ok t_cmp($e3->{query}, 'x=7', "/$p: QUERY_STRING");
    # os.environb shares os.environ's data: it kept the engine's first
    # environment (no request variable at all) when only os.environ was new
    ok t_cmp($e3->{queryb}, 'x=7', "/$p: QUERY_STRING in os.environb too");
    ok t_cmp($e1->{zero}, "$dir/env.py", "/$p: sys.argv[0] is the script");
    ok t_cmp($e1->{name}, '__main__', "/$p: __name__");
    ok t_cmp($e1->{file}, "$dir/env.py", "/$p: __file__");
    ok t_cmp($e1->{cwd}, $dir, "/$p: the working directory is the script's");
    ok t_cmp("$e1->{path_added} $e3->{path_added}", '1 1', "/$p: sys.path fresh per request");

    # cgi.FieldStorage: POST and upload, against mod_cgid.
    my $data = join '', map { chr(($_ * 11) % 256) } 1 .. 200_000;
    write_file("$vars->{t_logs}/upload-py.bin", $data, 0644);
    my @form = ('-F', 'name=ann', '-F', 'name=bob', '-F', 'note=caf%C3%A9',
                '-F', "file=\@$vars->{t_logs}/upload-py.bin;type=application/x-test");
    my ($ecode, undef, $ebody) = curl(@form, url("/$p/form.py"));
    my ($ccode, undef, $cbody) = curl(@form, url('/cgidpy/form.py'));
    ok t_cmp($ecode, 200, "/$p: a multipart POST with an upload");
    ok t_cmp($ebody, qr/^file name=upload-py\.bin size=200000 md5=${\ md5_hex($data)}$/m, "/$p: the upload, whole");
    ok t_cmp($ebody, $cbody, "/$p: the same body as mod_cgid's");
    ($ecode, undef, $ebody) = curl('--data', 'a=1&a=2&b=x%20y', url("/$p/form.py?q=z"));
    (undef, undef, $cbody) = curl('--data', 'a=1&a=2&b=x%20y', url('/cgidpy/form.py?q=z'));
    ok t_cmp($ebody, $cbody, "/$p: a urlencoded POST, as mod_cgid");
    (undef, undef, $ebody) = curl(url("/$p/form.py"));
    ok t_cmp($ebody, "method=GET\n", "/$p: no field of the previous request is left");

    # sys.exit and exceptions mid-request.
    for my $q ('', '0', '3') {
        ($code, $h, $body) = curl(url("/$p/exit.py?$q"));
        ok t_cmp("$code $body", $q eq '' ? "200 before pid=$e1->{pid}\nnot exited\n" : "200 before pid=$e1->{pid}\n",
                 "/$p: sys.exit($q) ends the request, not the engine");
    }
    ($code, undef, $body) = curl(url("/$p/exit.py?raise"));
    ok t_cmp($code, 500, "/$p: a script that raises before any output: 500");
    ($code, undef, $body) = curl(url("/$p/exit.py?late"));
    ok t_cmp("$code $body", "200 before pid=$e1->{pid}\n", "/$p: one that raises after its output: that output, as under CGI");
    # A script that wraps sys.stdout.buffer in a TextIOWrapper of its own.
    ($code, undef, $body) = curl(url("/$p/wrap.py"));
    (undef, undef, my $again) = curl(url("/$p/wrap.py"));
    ok t_cmp("$code $body$again", "200 caf\xc3\xa9 \xe2\x9c\x93\ncaf\xc3\xa9 \xe2\x9c\x93\n",
             "/$p: a script's own stdout wrapper, twice");
    # A script that detaches sys.stdout and writes to its buffer alone.
    ($code, undef, $body) = curl(url("/$p/detach.py"));
    ok t_cmp("$code $body", "200 detached\n", "/$p: a response written to the detached stdout buffer, unflushed");
    ($code, undef, $body) = curl(url("/$p/hello.py"));
    ok t_cmp("$code $body", "200 hello\n", "/$p: the next response is its own alone");

    # A script that takes 5 bytes of a binary body: the rest, read ahead
    # by the engine's streams or not, is not the next request's.
    my $bin = "$vars->{t_logs}/partial.bin";
    open my $bf, '>', $bin or die;
    print $bf "\xff\xfe" x 40000;
    close $bf;
    ($code, undef, $body) = curl('--data-binary', "\@$bin", url("/$p/partial.py?5"));
    ok t_cmp("$code $body", "200 fffefffeff\n", "/$p: 5 bytes of an 80000-byte binary body");
    ($code, undef, $body) = curl('--data-binary', 'hello', url("/$p/partial.py?100"));
    ok t_cmp("$code $body", "200 68656c6c6f\n", "/$p: the next request reads its own body, and only it");
    (undef, undef, $body) = curl(url("/$p/env.py"));
    ok t_cmp(kv($body)->{pid}, $e1->{pid}, "/$p: the same engine after all that");

    ($code) = curl(url("/$p/noexec.py"));
    ok t_cmp($code, 403, "/$p: a script without an execute bit: 403");
}
my $log = do { local (@ARGV, $/) = "$vars->{t_logs}/error_log"; <> };
ok t_cmp($log, qr/CGIPLUS1050: stderr from \Q$dir\E\/exit\.py \(pid \d+\): RuntimeError: engine-test-raise/,
         "the traceback is logged under the failed request's script");

# A changed file is compiled again at its next request, by the same engine.
sub version { write_file("$dir/version.py", "import os\ndef v():\n    return $_[0]\n"
                         . "print('Content-Type: text/plain\\n\\nv=%d pid=%d' % (v(), os.getpid()))\n") }
version(1);
my ($code, $h, $body) = curl(url('/epy/version.py'));
my ($pid) = $body =~ /pid=(\d+)/;
ok t_cmp($body, qr/^v=1 pid=\d+$/, 'version 1');
version(2);
(undef, undef, $body) = curl(url('/epy/version.py'));
ok t_cmp($body, "v=2 pid=$pid\n", 'the changed file is compiled again in the same engine');
sub main_log { local (@ARGV, $/) = "$vars->{t_logs}/error_log"; return <> // '' }
ok t_cmp(wait_for(sub { main_log() =~ /CGIPLUS3211: cgiplus-engine-python: \Q$dir\E\/version\.py changed: compiling it again \(pid $pid\)/ }, 10) ? 1 : 0, 1,
         '... and says so (3211)');
unlink "$dir/version.py";

# Plain CGI mode: the engine once per request.
my %pids;
for (1 .. 3) {
    ($code, $h, $body) = curl(url('/epycgi/env.py'));
    my $e = kv($body);
    $pids{$e->{pid}}++;
    ok t_cmp("$code $e->{helper_hits} $e->{leak}", '200 1 no', 'CGIplusMode cgi with an engine: a fresh process');
}
ok t_cmp(scalar keys %pids, 3, 'one process per request');

# The status page and the metrics show an engine's pools like any other:
# keyed by the engine program, never by a script it ran, counting the
# requests of every script (direct and relayed).
{
    my $engine = qr{/lib/python/cgiplus-engine-python$};
    my ($before) = script_requests(status(), $engine);
    curl(url("/epy/$_")) for qw(env.py hello.py form.py);
    curl(url('/epyr/hello.py'));
    my $after;
    wait_for(sub { ($after) = script_requests(status(), $engine); $after - $before >= 4 }, 3);
    ok t_cmp($after - $before, 4, 'the engine\'s pools count the requests of every script it ran');
    # (only these: the corpus's #! switches the engine cannot apply run as
    # plain CGI in pools of their own)
    ok t_cmp((script_requests(status(), qr{/engine/python/(?:env|hello|form)\.py$}))[1], 0,
             'no pool is keyed by a script the engine ran');
    my (undef, undef, $m) = curl(url('/cgiplus-status?metrics'));
    ok t_cmp($m, qr/cgiplus_pool_requests_total\{script="[^"]*cgiplus-engine-python",mode="cgiplus"\} [1-9]/,
             'the metrics list the engine\'s pool');
}

# atexit: the script's functions run at its request's end; a module's
# (weakref.finalize's) stay the engine's, so later requests on the same
# engine still see finalizers fire.
for my $p (qw(epy epyr)) {
    my (%pids, $ok);
    for (1 .. 6) {
        my ($c, undef, $b) = curl(url("/$p/atexit.py"));
        my ($pid) = $b =~ /^atexit pid=(\d+)$/m;
        $ok++ if $c == 200 && $b eq "finalized\natexit pid=" . ($pid // 0) . "\n";
        $pids{$pid // 0}++;
    }
    ok t_cmp($ok, 6, "/$p/atexit.py: every request's finalizer and atexit function ran, in order");
    ok t_cmp((grep { $_ > 1 } values %pids) ? 1 : 0, 1, "/$p/atexit.py: an engine served it more than once");
}

for my $p (qw(epyrss epyrssr)) {
    my (%seen, $ok);
    for (1 .. 4) {
        ($code, $h, $body) = curl(url("/$p/env.py"));
        my $e = kv($body);
        $ok++ if $code == 200 && ($e->{helper_hits} // 0) == 1;
        $seen{$e->{pid} // 0}++;
    }
    ok t_cmp($ok, 4, "/$p: every request served");
    ok t_cmp(scalar keys %seen, 4, "/$p: by a new engine each time (RETIRE)");
    my $pids = join '|', keys %seen;
    ok t_cmp(wait_for(sub { main_log() =~ /CGIPLUS2033: worker pid (?:$pids) callout RETIRE -> 200 retire/ }, 10) ? 1 : 0, 1,
             "/$p: the runner's answer to RETIRE logged (2033, debug)");
}
# and each says why (3215), as the Perl engine does (3235, t/58_engine_perl.t)
{
    my $rss = do { local (@ARGV, $/) = "$vars->{t_logs}/error_log"; <> };
    my $n = () = $rss =~ /CGIPLUS3215: cgiplus-engine-python: resident memory \d+ MiB is past CGIPLUS_ENGINE_MAX_RSS 1 MiB: replaced after this request/g;
    ok t_cmp($n >= 8 ? 1 : $n, 1, "past CGIplusEngineMaxRSS: said for each request (3215): $n lines");
}
