# Issue 22: a corpus of small CGI scripts written the way old scripts are
# (t/htdocs/engine/{perl,python}/corpus/, one idiom each), each run under
# mod_cgid (the reference: the same files in the same httpd) and under its
# engine: three requests in a row, then every script of the corpus
# interleaved on the one engine (CGIplusMaxWorkers 1), twice. Status,
# headers and body as mod_cgid gives them, every time. A script that ends
# the engine (POSIX::_exit, exec, os._exit: marked 'ends', first in the
# list) fails its own request only (its response may be cut: docs/APPS.md,
# "What breaks under an engine"), so its own answer is not compared: the
# next script's, on the engine that replaced it, is; it is left out of the
# second round, so that all of that round is one engine's, every script
# compiled in the first. The idioms t/58_engine_idioms.t and the others check
# are not repeated here.
use strict;
use warnings FATAL => 'all';
use Apache::Test;
use Apache::TestUtil;
use lib 't/htdocs/apps';
use AppTest qw(url);

my $up = 't/htdocs/engine/python/corpus/png.py';
my %corpus = (
    perl => [
        ['execit.pl', 'ends'], ['posixexit.pl', 'ends'],
        ['usedot.pl'], ['beginenv.pl'], ['envplain.pl'],
        ['counter.pl?a'], ['counter.pl?b'], ['timecache.pl'], ['closure.pl?x=1'], ['closure.pl?x=2'],
        ['parse.pl?a=1&b=x+y&a=2'], ['parse.pl', '--data', 'p=%41&q='],
        ['warnbrowser.pl'], ['carpwarn2.pl'], ['setmsg.pl'], ['plainfatal.pl'],
        ['umask.pl'], ['locale.pl'],
        ['dupout.pl?a'], ['dupout.pl?b'], ['dupout_pkg.pl?a'], ['dupout_pkg.pl?b'], ['aliasout.pl'], ['beginout.pl?a'], ['beginout.pl?b'], ['globfh.pl?a'], ['globfh.pl?b'], ['symfh.pl?a'], ['symfh.pl?b'], ['sigleft.pl'],
        ['selidiom.pl'], ['stream.pl'], ['gif.pl'], ['utf8out.pl'], ['selecth.pl'], ['selectleft.pl'], ['redirect.pl'],
        ['requirelib.pl?x'], ['doconfig.pl'], ['realbin.pl'], ['beginonce.pl'], ['endprint.pl'],
        ['endprint.pl?die'], ['sigwarn.pl'], ['stdinnull.pl'], ['fdopen1.pl'], ['readcl.pl', '--data-binary', "a=1\nb"], ['readcl.pl'],
        ['dieobj.pl'], ['dieobj.pl?after'], ['system.pl'], ['backtick.pl'], ['pipeout.pl'], ['pipein.pl'],
        ['childhdr.pl'], ['stderr.pl'], ['fmtname.pl'], ['srand42.pl'], ['randfresh.pl'], ['location.pl'], ['redirect302.pl'],
        ['status404.pl'], ['cookies.pl'], ['nph-corpus.pl'], ['chdir.pl'], ['tz.pl'], ['tzplain.pl'],
        ['slurpall.pl'], ['ofs.pl'], ['sigalrm.pl'], ['cgipm.pl?name=zed&b=1'],
        ['stderr.pl?after'],
        ['recurse.pl'],
        ['recurse_pkg.pl'],
        ['switch_l.pl'], ['switch_0.pl', '--data-binary', "a=1\nb\n"], ['switch_s.pl?-debug'],
        ['switch_n.pl', '--data-binary', "a=1\nb\n"], ['switch_C.pl'], ['switch_M.pl'], ['switch_I.pl'],
        ['envstart_lib.pl'], ['envstart_hash.pl'], ['cginph.pl'], ['shell.pl'],
        ['tiestdin.pl'], ['tieout.pl'], ['sysread.pl', '--data-binary', "a=1\nb"], ['sysread.pl'], ['readcl.pl', '--data', 'after=tie'],
        ['setglobals.pl'], ['defaults.pl'], ['dollar0.pl'], ['doplain.pl'],
        ['stdinutf8.pl', '--data-binary', "\xc3\xa9t\xc3\xa9"], ['stdinutf8.pl'],
        ['stdinlayer.pl', '--data-binary', "a\r\nb\r\n"], ['readcl.pl', '--data-binary', "after\r\ncrlf"],
        ['sigchld.pl'], ['crlf_w.pl'], ['dataseek.pl'], ['dataend.pl'], ['datapod.pl'],
        ['initlate.pl'], ['initsig_a.pl'], ['initsig_b.pl'], ['initsig_c.pl'],
        ['datautf8.pl'], ['datautf8end.pl'], ['databytes.pl'], ['warnw_set.pl'], ['warnw_get.pl'],
        ['sigstate.pl'], ['fmtstate.pl'], ['openstd.pl'], ['carpverbose.pl'], ['carpplain.pl'],
        ['setprio.pl'], ['nice.pl'],
    ],
    py => [
        ['os_exit.py', 'ends'],
        ['fd2dup.py'], ['fd1null.py'], ['fdopen1.py'],
        ['umask.py'], ['locale_set.py'],
        ['dunders.py'],
        ['gcoff.py'],
        ['thread.py'],
        ['socktimeout.py'],
        ['cgitb_before.py'], ['cgitb_after.py'], ['fs_get.py?a=&b=1&b=2'], ['fs_noblank.py?a=&b=1'],
        ['fs_get.py', '--data', 'x=&y=2'],
        ['fs_multi.py', '-F', 'name=ann', '-F', 'name=bob', '-F', 'blank=', '-F', "file=\@$up;type=text/plain"],
        ['png.py'], ['binonly.py'], ['mixnoflush.py'], ['stream.py'], ['codecswriter.py'], ['dupfd.py'], ['envmut.py'], ['globals_mut.py'],
        ['sibling.py'], ['atexit_out.py'], ['chdir.py'], ['signals.py'], ['exit_raise.py'], ['exit_builtin.py'],
        ['quit_msg.py'], ['input_nobody.py'], ['readcl.py', '--data-binary', "a=1\nb"], ['readcl.py'],
        ['stringio.py'], ['dunder_stdout.py'], ['dunder_write.py'], ['logging_err.py'], ['logging_out.py'], ['logger_main.py'], ['warn_py.py'], ['warn_page.py'], ['warn_plain.py'],
        ['tzset.py'], ['tzplain.py'], ['seed42.py'], ['randfresh.py'], ['seedfrom.py'], ['randfresh.py?from'], ['setstate42.py'], ['randfresh.py?setstate'],
        ['seedmod.py'], ['randfresh.py?mod'], ['subproc.py'], ['subproc_noflush.py'], ['oswrite.py'], ['reconfig.py'],
        ['unicode_out.py'], ['status.py'], ['location.py'], ['stdout_close.py'],
        ['pickle_main.py'],
        ['maxlen_set.py', '--data', 'a=1'], ['maxlen_after.py', '--data', 'long=xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx'],
        ['wsgi_base.py?a=1', '-H', 'Cookie: who=ann', '-H', 'X-Corpus: 1', '-H', 'Content-Type: text/x-corpus'], ['wsgi_base.py'],
        ['switch_B.py'], ['switch_I.py'], ['switch_P.py'], ['switch_S.py'], ['envstart.py'], ['envstart_E.py'],
        ['setsys.py'], ['pydefaults.py'], ['i18n_user.py'], ['pydefaults.py?after-i18n'],
        ['audithook.py'], ['listdir.py'],
        ['decimal_ctx.py'], ['decimal_set.py'], ['warn_once.py'], ['log_capture.py'], ['log_disable.py'],
        ['sigstate.py'], ['hooks.py'], ['sslctx.py'], ['rlimit.py'], ['rlimit_hard.py'],
        ['asyncloop.py'], ['asyncpolicy.py'], ['affinity.py'], ['nice.py'],
        ['tmpdir.py'], ['tmpdir_env.py'], ['tmpdir.py?again'], ['log_named.py'], ['log_module.py'],
    ],
);

sub ends { my @a = @{ $_[0] }; return @a > 1 && $a[-1] eq 'ends' }
plan tests => 2 * scalar(grep { !ends($_) } @{ $corpus{perl} }, @{ $corpus{py} }) + 21;
my $logf = Apache::Test::config()->{vars}{t_logs} . '/error_log';
my $log_at = -s $logf;

# A library the script requires, changed between its runs: under CGI each
# run reads the file as it is then.
my $changed = 't/htdocs/engine/perl/corpus/reqchanged-lib.pl';
sub lib_version {
    open my $fh, '>', "$changed.new" or die "$changed: $!";
    print $fh "sub lib_version { 'library version $_[0]' }\n1;\n";
    close $fh;
    rename "$changed.new", $changed or die "$changed: $!";
}

# One request: its status, its headers (sorted; the ones of the connection
# and the date dropped) and its body, as one string.
sub answer {
    my ($path, @args) = @_;
    open my $fh, '-|', 'curl', '-s', '--max-time', '30', '-D', '-', @args, url($path) or die "curl: $!";
    local $/;
    my $out = <$fh> // '';
    close $fh;
    my ($head, $body) = split /\r\n\r\n/, $out, 2;
    my ($code) = ($head // '') =~ m{^HTTP/\S+ (\d{3})};
    my @h = sort grep { !/^(date|server|keep-alive|connection|content-length|transfer-encoding):/i }
            map { s/^([^:]+):/lc($1) . ':'/er } grep { /:/ } split /\r\n/, $head // '';
    $body //= '';
    $body =~ s/\w{3} \w{3} [ \d]\d \d\d:\d\d:\d\d \d{4}/(time)/g;      # cgitb's page
    return join "\n", $code // 0, @h, '', $body;
}

lib_version(1);
my @lib_runs = map { answer('/eperl/corpus/reqchanged.pl') } 1 .. 2;
lib_version(2);
my $lib_want = answer('/cgidperl/corpus/reqchanged.pl');
push @lib_runs, map { answer('/eperl/corpus/reqchanged.pl') } 1 .. 2;
ok t_cmp($lib_want, qr/library version 2\n\z/, 'mod_cgid: the changed library');
ok t_cmp(join("\n==\n", @lib_runs[2, 3]), join("\n==\n", ($lib_want) x 2),
         'a library the script requires, changed: its next runs have the new one, as under mod_cgid');
unlink $changed;

# The same for a Python module beside the script, which it imports.
my $mod = 't/htdocs/engine/python/corpus/corpus_chg.py';
sub mod_version {
    open my $fh, '>', "$mod.new" or die "$mod: $!";
    print $fh "VERSION = 'module version $_[0]'\n";
    close $fh;
    rename "$mod.new", $mod or die "$mod: $!";
}
mod_version(1);
my @mod_runs = map { answer('/epy/corpus/sibchanged.py') } 1 .. 2;
mod_version(2);
my $mod_want = answer('/cgidpy/corpus/sibchanged.py');
push @mod_runs, map { answer('/epy/corpus/sibchanged.py') } 1 .. 2;
ok t_cmp($mod_want, qr/module version 2\n\z/, 'mod_cgid: the changed module');
ok t_cmp(join("\n==\n", @mod_runs[2, 3]), join("\n==\n", ($mod_want) x 2),
         'a module beside the script, changed: its next runs import the new one, as under mod_cgid');
# and changed again: the module its last run imported afresh is the one
# watched now
mod_version(3);
my $mod_want3 = answer('/cgidpy/corpus/sibchanged.py');
my @mod_runs3 = map { answer('/epy/corpus/sibchanged.py') } 1 .. 2;
ok t_cmp($mod_want3, qr/module version 3\n\z/, 'mod_cgid: the module changed again');
ok t_cmp(join("\n==\n", @mod_runs3), join("\n==\n", ($mod_want3) x 2),
         'a module beside the script, changed twice: its next runs import the newest, as under mod_cgid');
unlink $mod;

for my $lang (qw(perl py)) {
    my @list = @{ $corpus{$lang} };
    my %want;
    for my $c (@list) {
        my ($script, @args) = @$c;
        if (ends($c)) {
            answer("/e$lang/corpus/$script") for 1 .. 3;
            next;
        }
        $want{"@$c"} = answer("/cgid$lang/corpus/$script", @args);
        # (a script missing from the corpus is no pass: 404 on both sides)
        $want{"@$c"} = "mod_cgid: no such script"
            if $want{"@$c"} =~ /\A404\n.*The requested URL was not found on this server/s;
        my @got = map { answer("/e$lang/corpus/$script", @args) } 1 .. 3;
        ok t_cmp(join("\n==\n", @got), join("\n==\n", ($want{"@$c"}) x 3),
                 "$lang $script @args: three in a row, as under mod_cgid");
    }
    my %got;
    for my $round (1 .. 2) {
        for my $c ($round == 1 ? @list : grep { !ends($_) } @list) {
            my ($script, @args) = @$c;
            push @{ $got{"@$c"} }, answer("/e$lang/corpus/$script", ends($c) ? () : @args);
        }
    }
    for my $c (grep { !ends($_) } @list) {
        my ($script, @args) = @$c;
        ok t_cmp(join("\n==\n", @{ $got{"@$c"} }), join("\n==\n", ($want{"@$c"}) x 2),
                 "$lang $script @args: interleaved with the others, as under mod_cgid");
    }
}

# A lock a script took on a bareword handle and left: free once its
# response is in, as a CGI process's exit closes the handle (it was held
# until the engine ran the script again: other workers, a cron job waited).
{
    use Fcntl qw(:flock);
    my $lock = Apache::Test::config()->{vars}{t_logs} . '/corpus-lockheld.lock';
    open my $lf, '>>', $lock or die "$lock: $!";
    close $lf;
    chmod 0666, $lock;
    for my $side (qw(cgidperl eperl)) {
        my $got = answer("/$side/corpus/lockheld.pl?$lock");
        open my $fh, '>>', $lock or die "$lock: $!";
        my $free = flock($fh, LOCK_EX | LOCK_NB) ? 'free' : 'held';
        close $fh;
        ok t_cmp("$got: $free", qr/the lock taken\n: free\z/, "$side: lockheld.pl's lock is free after its response");
    }
}

# $^T, the time a Perl script started, is what -M and -A count from: a
# file written after the engine started but before this request is not
# from the future. (The engine has served the corpus: it started before
# the second the stamp is written in, and the request comes in a later
# second; polled, 30 s at most each.)
sub next_second { my $t = shift; for (1 .. 300) { last if time > $t; select undef, undef, undef, 0.1 } }
my $stamp = 't/htdocs/engine/perl/corpus/basetime.stamp';
answer('/eperl/corpus/stderr.pl');
next_second(time);
open my $sf, '>', $stamp or die "$stamp: $!";
close $sf;
next_second((stat $stamp)[9]);
my $bt_want = answer('/cgidperl/corpus/basetime.pl');
my $bt_got = answer('/eperl/corpus/basetime.pl');
unlink $stamp;
ok t_cmp($bt_want, qr/stamp older than the start\n\z/, 'mod_cgid: a file written before the request is older than the script');
ok t_cmp($bt_got, $bt_want, "-M counts from this run's start (\$^T), as under mod_cgid");

# The switches and variables above that a persistent interpreter cannot
# take for one script: the module ran those scripts as plain CGI, and said
# why (3700, 3701, at debug; 1360 for one whose #! names another program). -T is the engine's, without taint checks,
# said once per script and engine (3702). A Python engine whose script
# added an audit hook ends after that response (3703), as one whose script
# lowered a hard resource limit (3710) or its priority (3711; Perl: 3712).
{
    my @taint = map { answer('/eperl/corpus/taint.pl') } 1 .. 2;
    ok t_cmp(join("\n==\n", @taint), join("\n==\n", ("200\ncontent-type: text/plain\n\ntaint=0\n") x 2),
             '-wT: on the engine, without taint checks');
    open my $fh, '<', $logf or die "$logf: $!";
    seek $fh, $log_at, 0;
    my $log = do { local $/; <$fh> // '' };
    ok t_cmp($log, qr{CGIPLUS3700: \S*/corpus/switch_l\.pl: its #! line's '-l' is not all the perl engine's}, '3700: switch_l.pl as plain CGI, logged');
    ok t_cmp(scalar(() = $log =~ m{CGIPLUS3700: \S*/corpus/crlf_w\.pl}g), 0, 'crlf_w.pl (-w and a CR) on the engine');
    ok t_cmp($log, qr{CGIPLUS3700: \S*/corpus/switch_B\.py: its #! line's '-B' is not all the python engine's}, '3700: switch_B.py as plain CGI, logged');
    ok t_cmp($log, qr{CGIPLUS3701: \S*/corpus/envstart\.py: the request's PYTHON\w+, which python reads}, '3701: envstart.py as plain CGI, logged');
    ok t_cmp($log, qr{CGIPLUS1360: \S*/corpus/shell\.pl is not a perl script \(its #! line, or a compiled program\): run as plain CGI}, '1360: shell.pl (#!/bin/sh) as plain CGI, logged');
    ok t_cmp(scalar(() = $log =~ m{CGIPLUS3702: cgiplus-engine-perl: \S*/corpus/taint\.pl: its #! line asks for taint checks}g), 1,
             '3702: taint.pl logged once');
    ok t_cmp($log, qr{CGIPLUS3703: cgiplus-engine-python: \S*/corpus/audithook\.py added an audit hook \(sys\.addaudithook\), which stays for the process's life: this engine ends after its response},
             '3703: audithook.py, the engine retired');
    ok t_cmp($log, qr{CGIPLUS3710: cgiplus-engine-python: \S*/corpus/rlimit_hard\.py lowered the hard limit RLIMIT_NOFILE, which this process cannot raise again: this engine ends after its response},
             '3710: rlimit_hard.py, the engine retired');
    ok t_cmp($log, qr{CGIPLUS3711: cgiplus-engine-python: \S*/corpus/nice\.py lowered its priority to 19 \(os\.nice, os\.setpriority\), which this process cannot raise again: this engine ends after its response},
             '3711: nice.py, the engine retired');
    ok t_cmp($log, qr{CGIPLUS3712: cgiplus-engine-perl: \S*/corpus/nice\.pl lowered its priority to 19 \(POSIX::nice, setpriority\), which this process cannot raise again: this engine ends after its response},
             '3712: nice.pl, the engine retired');
}
