# Issue 22, part 1: the Perl engine (CGIplusEngine perl) runs unmodified CGI
# scripts persistently: one engine process serves every script of its
# scope; each file is compiled once (CGI::Compile) and run per request with
# a fresh %ENV, @ARGV, $0, STDIN, STDOUT, working directory and CGI.pm
# globals; exit ends the request, not the engine; a changed file is
# compiled again; __DATA__ and __END__ work; an engine past
# CGIplusEngineMaxRSS is replaced after its request, no request failing;
# an upload's temporary file (CGI.pm's) is gone when its response comes.
# On the direct path and relayed; as plain CGI too; mod_cgid is the
# reference for what a script answers.
use strict;
use warnings FATAL => 'all';
use Apache::Test;
use Apache::TestUtil;
use Digest::MD5 qw(md5_hex);
use File::Copy qw(copy);
use Time::HiRes qw(sleep);
use lib 't/htdocs/apps', 't/htdocs/pool/lib';
use PoolTest qw(status script_requests wait_for);
use AppTest qw(write_file curl url);

plan tests => 88;

my $vars = Apache::Test::config()->{vars};
my $dir = "$vars->{documentroot}/engine/perl";
sub kv { my %h = $_[0] =~ /^(\w+)=(.*)$/mg; \%h }

# upload_tmp.pl's upload of 3000 bytes: its size and whether its temporary
# file was there during the run and is gone now.
write_file("$vars->{t_logs}/upload3k.txt", 'u' x 3000, 0644);
sub upload_tmp {
    my ($path, $style) = @_;
    my ($code, undef, $body) = curl('-F', "file=\@$vars->{t_logs}/upload3k.txt", url($path . ($style ? "?$style" : '')));
    my $k = kv($body);
    return "$code $body" unless $code == 200 && $k->{tmp};
    return "size=$k->{size} there=$k->{there} gone=" . (-e $k->{tmp} ? 0 : 1);
}
for my $style ('', 'fn') {
    ok t_cmp(upload_tmp('/cgidperl/upload_tmp.pl', $style), 'size=3000 there=1 gone=1',
             "mod_cgid: an upload's temporary file (" . ($style ? "CGI.pm's function interface" : 'an object')
             . ') is gone when the response comes');
}

for my $p (qw(eperl eperlr)) {
    # One engine for every script of the scope.
    my ($code, $h, $body) = curl(url("/$p/hello.pl"));
    ok t_cmp("$code $body", "200 hello\n", "/$p: CGI.pm hello");
    ok t_cmp($h->{'content-type'}, qr{^text/plain}, "/$p: its header");
    (undef, undef, $body) = curl(url("/$p/env.pl"));
    my $e1 = kv($body);
    (undef, undef, $body) = curl(url("/$p/env.pl?a+b%20c+d%3Be"));
    my $e2 = kv($body);
    (undef, undef, $body) = curl(url("/$p/form.pl?x=1"));
    (undef, undef, my $b3) = curl(url("/$p/env.pl?x=7"));
    my $e3 = kv($b3);
    ok t_cmp("$e2->{pid} $e3->{pid}", "$e1->{pid} $e1->{pid}", "/$p: one engine pid across requests and scripts");
    ok t_cmp("$e1->{runs} $e2->{runs}", '1 1', "/$p: the script's package variables start empty at each run, as in a new process");
    ok t_cmp($e1->{engine_runs} + 1, $e2->{engine_runs}, "/$p: the script runs in the same process (a variable of a package it names without declaring it persists)");
    ok t_cmp($e2->{leak}, 'no', "/$p: %ENV fresh: what the previous run set is gone");
    ok t_cmp($e2->{signals}, 'alarm 0 usr1 default',
             "/$p: the previous run's \$SIG{USR1} and its pending alarm are gone");
    ok t_cmp($e2->{argv}, 'a|b c|d\;e', "/$p: \@ARGV from an ISINDEX query, as mod_cgi");
    ok t_cmp($e3->{argc}, 0, "/$p: no \@ARGV for a query with '='");
    ok t_cmp($e3->{x}, 7, "/$p: CGI.pm reads this request's query");
    ok t_cmp($e1->{x}, '(none)', "/$p: and no earlier one's");
    ok t_cmp($e1->{zero}, "$dir/env.pl", "/$p: \$0 is the script");
    ok t_cmp($e1->{cwd}, $dir, "/$p: the working directory is the script's");
    ok t_cmp($e1->{script}, "/$p/env.pl", "/$p: SCRIPT_NAME");
    ok t_cmp($e1->{filename}, "$dir/env.pl", "/$p: SCRIPT_FILENAME");

    # POST and upload, against mod_cgid; after env.pl changed $/, $| and
    # STDOUT's layer for itself.
    my $data = join '', map { chr(($_ * 13) % 256) } 1 .. 200_000;
    write_file("$vars->{t_logs}/upload.bin", $data, 0644);
    my @form = ('-F', 'name=ann', '-F', 'name=bob', '-F', 'note=caf%C3%A9',
                '-F', "file=\@$vars->{t_logs}/upload.bin;type=application/x-test");
    my ($ecode, undef, $ebody) = curl(@form, url("/$p/form.pl"));
    my ($ccode, undef, $cbody) = curl(@form, url('/cgidperl/form.pl'));
    ok t_cmp($ecode, 200, "/$p: a multipart POST with an upload");
    ok t_cmp($ebody, qr/^file name=upload\.bin size=200000 md5=${\ md5_hex($data)}$/m, "/$p: the upload, whole");
    $cbody =~ s{^url=/cgidperl/}{url=/$p/}m;
    ok t_cmp($ebody, $cbody, "/$p: the same body as mod_cgid's");
    ($ecode, undef, $ebody) = curl('--data', 'a=1&a=2&b=x%20y', url("/$p/form.pl?q=z"));
    (undef, undef, $cbody) = curl('--data', 'a=1&a=2&b=x%20y', url('/cgidperl/form.pl?q=z'));
    $cbody =~ s{^url=/cgidperl/}{url=/$p/}m;
    ok t_cmp($ebody, $cbody, "/$p: a urlencoded POST, as mod_cgid");
    (undef, undef, $ebody) = curl(url("/$p/form.pl"));
    ok t_cmp($ebody, "method=GET\nurl=/$p/form.pl\n", "/$p: no parameter of the previous request is left");
    # An upload's temporary file is gone once its response has come, as a
    # CGI process's exit removes it (CGI.pm held it until the next run).
    for my $style ('', 'fn') {
        ok t_cmp(upload_tmp("/$p/upload_tmp.pl", $style), 'size=3000 there=1 gone=1',
                 "/$p: CGI.pm's temporary file of an upload (" . ($style ? 'its function interface' : 'an object')
                 . ') is gone when the response comes');
    }

    # exit and die mid-request.
    for my $q ('', '0', '3') {
        ($code, $h, $body) = curl(url("/$p/exit.pl?$q"));
        ok t_cmp("$code $body", $q eq '' ? "200 before pid=$e1->{pid}\nnot exited\n" : "200 before pid=$e1->{pid}\n",
                 "/$p: exit($q) ends the request, not the engine");
    }
    ($code, undef, $body) = curl(url("/$p/exit.pl?die"));
    ok t_cmp($code, 500, "/$p: a script that dies before any output: 500");
    (undef, undef, $body) = curl(url("/$p/hello.pl"));
    ok t_cmp($body, "hello\n", "/$p: and the engine goes on");
    (undef, undef, $body) = curl(url("/$p/env.pl"));
    ok t_cmp(kv($body)->{pid}, $e1->{pid}, "/$p: the same engine after exit and die");

    # __END__ and __DATA__.
    (undef, undef, $body) = curl(url("/$p/data.pl"));
    ok t_cmp($body, "line one after END\nline two after END\n", "/$p: DATA after __END__");
    (undef, undef, $body) = curl(url("/$p/data2.pl"));
    (undef, undef, my $again) = curl(url("/$p/data2.pl"));
    ok t_cmp("$body|$again", "2 lines: alpha\nbeta\n|2 lines: alpha\nbeta\n", "/$p: DATA after __DATA__, each request");

    # A file that is not executable is refused, as plain CGI refuses it.
    ($code) = curl(url("/$p/noexec.pl"));
    ok t_cmp($code, 403, "/$p: a script without an execute bit: 403");
}

# A changed file is compiled again at its next request, by the same engine.
my $ver = "$vars->{t_logs}/engine-version";
sub version { write_file("$dir/version.pl", "#!/usr/bin/perl\nsub v { $_[0] }\n"
                         . "print \"Content-Type: text/plain\\n\\nv=\", v(), \" pid=\$\$\\n\";\n") }
version(1);
my ($code, $h, $body) = curl(url('/eperl/version.pl'));
my ($pid) = $body =~ /pid=(\d+)/;
ok t_cmp($body, qr/^v=1 pid=\d+$/, 'version 1');
version(2);
(undef, undef, $body) = curl(url('/eperl/version.pl'));
ok t_cmp($body, "v=2 pid=$pid\n", 'the changed file is compiled again in the same engine');
# The engine's note of it is routine (errors.md: info), not a script error:
# one per engine at every deploy would alarm an admin.
my ($note) = reverse grep { /CGIPLUS3231: .*version\.pl changed/ }
             do { local @ARGV = "$vars->{t_logs}/error_log"; <> };
ok t_cmp($note // 'no 3231 line', qr/\[cgiplus(?:-runner)?:info\]/,
         'the engine\'s "compiling it again" note is logged at info');
version(3);
(undef, undef, $body) = curl(url('/eperl/version.pl'));
ok t_cmp($body, "v=3 pid=$pid\n", 'and again (no "redefined" trouble)');
unlink "$dir/version.pl";

# Plain CGI mode: the engine once per request.
my %pids;
for (1 .. 3) {
    ($code, $h, $body) = curl(url('/eperlcgi/env.pl'));
    my $e = kv($body);
    $pids{$e->{pid}}++;
    ok t_cmp("$code $e->{runs} $e->{leak}", '200 1 no', 'CGIplusMode cgi with an engine: a fresh process');
}
ok t_cmp(scalar keys %pids, 3, 'one process per request');

# The status page and the metrics show an engine's pools like any other:
# keyed by the engine program, never by a script it ran, counting the
# requests of every script (direct and relayed).
{
    my $engine = qr{/lib/perl/cgiplus-engine-perl$};
    my ($before) = script_requests(status(), $engine);
    curl(url("/eperl/$_")) for qw(env.pl hello.pl data.pl);
    curl(url('/eperlr/hello.pl'));
    my $after;
    wait_for(sub { ($after) = script_requests(status(), $engine); $after - $before >= 4 }, 3);
    ok t_cmp($after - $before, 4, 'the engine\'s pools count the requests of every script it ran');
    # (only these: files the other tests put there that the engine does
    # not run, a shell script, a #! switch it cannot apply, run as plain
    # CGI in pools of their own)
    ok t_cmp((script_requests(status(), qr{/engine/perl/(?:env|hello|data)\.pl$}))[1], 0,
             'no pool is keyed by a script the engine ran');
    my (undef, undef, $m) = curl(url('/cgiplus-status?metrics'));
    ok t_cmp($m, qr/cgiplus_pool_requests_total\{script="[^"]*cgiplus-engine-perl",mode="cgiplus"\} [1-9]/,
             'the metrics list the engine\'s pool');
}

# Past CGIplusEngineMaxRSS (1M: every engine is past it) the engine is
# replaced after each request: every request succeeds, each in a new one.
# @INC: a script's `use lib` stays its own (inc_a.pl), not the next
# script's on the same engine (inc_b.pl).
for my $p (qw(eperl eperlr)) {
    my (%a_pids, @b);
    for (1 .. 3) {
        my (undef, undef, $ba) = curl(url("/$p/inc_a.pl"));
        my (undef, undef, $bb) = curl(url("/$p/inc_b.pl"));
        $a_pids{$1} = $2 if $ba =~ /^pid=(\d+) has=(\d)$/m;
        push @b, [$1, $2] if $bb =~ /^pid=(\d+) has=(\d)$/m;
    }
    my @after_a = grep { exists $a_pids{$_->[0]} } @b;
    ok t_cmp(join(' ', values %a_pids), qr/^1( 1)*$/, "/$p/inc_a.pl: its use lib holds on every run");
    ok t_cmp(scalar(@after_a) > 0 ? 1 : 0, 1, "/$p/inc_b.pl: run by an engine that had run inc_a.pl");
    ok t_cmp(join(' ', map { $_->[1] } @after_a), qr/^0( 0)*$/, "/$p/inc_b.pl: and inc_a.pl's lib is not in its \@INC");
}

for my $p (qw(eperlrss eperlrssr)) {
    my (%seen, $ok);
    for (1 .. 4) {
        ($code, $h, $body) = curl(url("/$p/env.pl"));
        my $e = kv($body);
        $ok++ if $code == 200 && $e->{runs} == 1;
        $seen{$e->{pid} // 0}++;
    }
    ok t_cmp($ok, 4, "/$p: every request served");
    ok t_cmp(scalar keys %seen, 4, "/$p: by a new engine each time (RETIRE)");
}
my $log = do { local (@ARGV, $/) = "$vars->{t_logs}/error_log"; <> };
ok t_cmp($log, qr/CGIPLUS3235: cgiplus-engine-perl: resident memory \d+ MiB is past CGIPLUS_ENGINE_MAX_RSS 1 MiB: replaced after this request/,
         'the replacement is logged');

# The status page counts an engine pool's requests by script, both paths
# in one entry: /eperl/ and /eperlr/ share the pool (CGIplusDirect is not
# part of its key); the warm pool's /eperl/ requests are served by the
# children alone (the runner never sees them), /eperlr/'s by the runner.
write_file("$dir/tally.pl", "#!/usr/bin/perl\nprint \"Content-Type: text/plain\\n\\ntally\\n\";\n", 0755);
sub tally {
    my @t = map { $_->{requests} } grep { $_->{script} eq "$dir/tally.pl" }
        map { @{ $_->{scripts} // [] } } grep { !$_->{retired} } @{ status()->{pools} };
    return "@t";
}
my @seen;
for my $p (qw(eperl eperlr)) {
    for (1 .. ($p eq 'eperl' ? 3 : 2)) {
        ($code, undef, $body) = curl(url("/$p/tally.pl"));
        die "tally.pl: $code $body" unless "$code $body" eq "200 tally\n";
    }
    push @seen, tally();
}
ok t_cmp($seen[0], '3', 'after 3 requests on the direct path, the engine pool lists tally.pl with 3');
ok t_cmp($seen[1], '5', 'after 2 more relayed by the runner, with 5 (one entry, both paths)');
unlink "$dir/tally.pl";
