# Issue 22, part 1: what old CGI scripts do runs under the engines as each
# did in a process of its own (mod_cgid, the reference, serves the same
# files in the same httpd): CGI::Carp's fatalsToBrowser page (also for a
# compile error, and one perl ends with a die), END blocks
# run per request, a script's $SIG{__DIE__} called once for a die and never
# for exit, an empty body slurped as '', a library of subs and a file of
# globals required by two scripts (each has them), FindBin and `use lib`
# from it, format/write per script, sys.exit("message") logged, undecodable
# bytes in PATH_INFO printed, a modulino (`main() unless caller`). And
# what a script does to its own stderr and stdout (dup'd into the body,
# carpout to a file, STDOUT reopened onto a file) ends with its request:
# the next script's warnings go to the error log, its response to its
# client, on the same engine (one worker).
# printenv (every variable with its value, then a child's `env`): the
# whole environment as under mod_cgid, without the engine's CGIplus
# markers, whose CGIPLUSEOF value printed would end the response there.
use strict;
use warnings FATAL => 'all';
use Apache::Test;
use Apache::TestUtil;
use lib 't/htdocs/apps';
use AppTest qw(curl url);

plan tests => 116 + 2 * 4;

my $vars = Apache::Test::config()->{vars};
my $logf = "$vars->{t_logs}/error_log";
my $spool = "$vars->{t_logs}/idioms";
mkdir $spool;
chmod 0777, $spool;
unlink glob("$spool/*");

sub log_from { open my $fh, '<', $logf or return ''; seek $fh, $_[0], 0; local $/; <$fh> // '' }
sub slurp { open my $fh, '<', $_[0] or return ''; local $/; <$fh> // '' }
sub count { my ($text, $re) = @_; scalar(() = $text =~ /$re/g) }

# "status type\nbody" of one request
sub answer {
    my ($path, @args) = @_;
    my ($code, $h, $body) = curl(@args, url($path));
    return "$code " . ($h->{'content-type'} // '-') . "\n$body";
}

# Two runs on the engine, each as mod_cgid answers.
sub same {
    my ($lang, $script, $name, @args) = @_;
    my $want = answer("/cgid$lang/idioms/$script", @args);
    my @got = map { answer("/e$lang/idioms/$script", @args) } 1 .. 2;
    ok t_cmp("$got[0]\n--\n$got[1]", "$want\n--\n$want", "$name: as under mod_cgid, twice");
}

sub engine_pid {
    my ($lang, $ext) = @_;
    my (undef, undef, $body) = curl(url("/e$lang/idioms/pid.$ext"));
    return $body =~ /(\d+)/ ? $1 : 0;
}

my $ppid = engine_pid('perl', 'pl');
ok t_cmp($ppid > 0 ? 1 : 0, 1, 'the Perl engine answers');

same('perl', 'carp.pl', 'CGI::Carp fatalsToBrowser, a die before any output: its 500 page');
same('perl', 'carp.pl?after', 'and after the header: its message at the end of the body');
same('perl', 'carpcompile.pl', "a compile error after `use CGI::Carp qw(fatalsToBrowser)`: its 500 page, perl's message");
same('perl', 'carpbrace.pl', 'a brace left open: perl names the end of the file, not the code after it');
same('perl', 'carpcroak.pl', "a compile perl ends with a die of its own: perl's message alone, no \"Execution of ... aborted\"");
same('perl', 'carpcroakafter.pl', 'and after an error perl gathered: both, as perl gives them');
same('perl', 'carpmissing.pl', "a module missing: perl's \@INC in the message, not the engine's directory");
same('perl', 'end.pl', 'an END block runs at the end of each request');
same('perl', 'end.pl?exit', 'after exit too');
same('perl', 'sighook.pl?die', "a die: the script's \$SIG{__DIE__} runs once");
same('perl', 'sighook.pl?exit', 'exit: the hook is not called');
same('perl', 'sighook.pl', 'no die: the hook is not called');
same('perl', 'slurp.pl', "a slurp of an empty body (GET) is ''");
same('perl', 'slurp.pl', 'a slurp of a POST body', '--data-binary', "two\nlines");
for (1 .. 2) {
    same('perl', 'req_a.pl', "req_a.pl requires lib.pl and config.pl (round $_)");
    same('perl', 'req_b.pl', "req_b.pl requires the same files: it has their subs and globals too (round $_)");
}
same('perl', 'globals.pl', 'package variables without my start each run empty, or as BEGIN and a required file of globals set them');
same('perl', 'globals2.pl', "and those of a package the script declares, and main's its compile made (\$main::x, package main)");
my $tied_at = -s $logf;
same('perl', 'tiedgone.pl', 'a run leaving a package variable that cannot be put back (its FETCH dies)');
my $tied_log = '';
for (1 .. 300) {
    $tied_log = log_from($tied_at);
    last if count($tied_log, qr/CGIPLUS3236: /) >= 2;
    select undef, undef, undef, 0.1;
}
ok t_cmp(count($tied_log, qr/CGIPLUS3236: .*tiedgone\.pl: resetting its package variables: the gauge is closed/),
         2, 'the engine says so (3236), after each of its two runs');
same('perl', 'cgilib.pl?a=1&b=2&a=3', "a perl 4 script on cgi-lib.pl's ReadParse: its %in and counters start empty");
same('perl', 'cgilib.pl', 'POST', '--data', 'c=4');
same('perl', 'shell.cgi?a+b', "a #!/bin/sh script in the Perl engine's scope runs as under mod_cgid");
same('perl', 'py.cgi?q=1', 'and a #!/usr/bin/env python3 one');
my $shared_at = -s $logf;
same('perl', 'shared.pl?x=1', "named subs using the file's my variables see this run's (x=1)");
same('perl', 'shared.pl?x=2&y=3', 'and the next request\'s (x=2)');
same('perl', 'shared3.pl?x=1', "and those of the packages the file declares, main's too (x=1)");
same('perl', 'shared3.pl?x=2', 'and the next request\'s (x=2)');
same('perl', 'shared2.pl?x=4', 'a name declared twice: compiled for each request (x=4)');
same('perl', 'shared2.pl?x=5', 'and the next (x=5)');
my $shared_log = log_from($shared_at);
ok t_cmp(count($shared_log, qr/CGIPLUS3237: .*shared2\.pl: sub show uses \$q, the file's own my variables/) . ' '
         . count($shared_log, qr/CGIPLUS3237: .*shared3?\.pl/), '1 0',
         'that one logged once (3237); the first is bound to each run\'s variables, compiled once');
# Under `use warnings`, compiled inside the engine's named wrapper, Perl
# says "will not stay shared" for those subs, which a CGI process (the file
# its main program) never says; the engine binds them, so it says nothing
# either. A named sub inside another warns in a CGI process too: so here,
# once a compile (it is compiled for each request, 3237).
my $warn_at = -s $logf;
same('perl', 'shared_w.pl?x=6', "under use warnings: named subs using the file's my variables (x=6)");
same('perl', 'shared_w.pl?x=7', 'and the next request (x=7)');
same('perl', 'shared_nested.pl?n=1', 'a named sub inside another');
my $warn_log = log_from($warn_at);
ok t_cmp(count($warn_log, qr/Variable "[\$\@%](?:q|form)" will not stay shared/) . ' '
         . count($warn_log, qr/Variable "\$nested_y" will not stay shared/), '0 3',
         "no \"will not stay shared\" for the file's variables, as under mod_cgid; the nested sub's from mod_cgid's run and the engine's two");
same('perl', 'mainsubs.pl', "package main's subs named as the engine's functions are the script's");
same('perl', 'modulino.pl', 'a modulino (`exit main() unless caller`) runs its main: caller from its top level, subs, evals as under mod_cgid');
same('perl', 'modulino_run.pl', 'and `__PACKAGE__->run() unless caller`');
same('perl', 'findbin.pl', "FindBin's \$Bin is the script's directory; `use lib` from it finds its module");
same('perl', 'format.pl', 'format and write: the page top, then the lines');
same('perl', 'format2.pl', "another script's format STDOUT is its own");
same('perl', 'format.pl', 'the first again: its own format, its page top again');

# `open ... or exit -1` (cvsweb): Perl's "ambiguous" warning for it comes
# only from an overridden exit; as under mod_cgid, nothing is logged. And
# its #!perl -wT turns warnings on, as it compiles (logged once a compile)
# and as it runs.
my $off0 = -s $logf;
same('perl', 'exitneg.pl', '`or exit -1` not taken');
same('perl', 'exitneg.pl?fail', '`or exit -1` taken: the request ends there');
ok t_cmp(count(log_from($off0), qr/ambiguous/), 0, 'no "exit ... ambiguous" warning in the error log');
ok t_cmp(count(log_from($off0), qr/exitneg-compile-marker/), 3,
         "its warning as it compiles is logged: mod_cgid's two runs, the engine's one compile");
ok t_cmp(count(log_from($off0), qr/uninitialized value \$exitneg_u/), 6,
         "its warning as it runs is logged: mod_cgid's two runs, the engine's four");

# `exec ...; exit 1;`: perl's "Statement unlikely to be reached" is not for
# an exit there; the engine's overridden exit is no reason to log it.
$off0 = -s $logf;
same('perl', 'execexit.pl', '`exec ...; exit 1;` compiles and runs');
ok t_cmp(count(log_from($off0), qr/Statement unlikely to be reached|Maybe you meant system/), 0,
         'no "Statement unlikely to be reached" for the exit after an exec in the error log');

# INIT blocks (the script's, its module's) run after its compile, before
# its code, as in a CGI process; perl's "Too late to run INIT block" is not
# logged (the engine runs them).
$off0 = -s $logf;
same('perl', 'initblock.pl', "INIT blocks run: the script's and its module's");
ok t_cmp(count(log_from($off0), qr/Too late to run INIT block/), 0, 'no "Too late to run INIT block" in the error log');

# stderr into the body, for that request only
same('perl', 'errdup.pl', "open STDERR, '>&STDOUT': its stderr in its body");
my $off = -s $logf;
ok t_cmp(answer('/eperl/idioms/warns.pl'), "200 text/plain\nok\n",
         "the next script's warning is not in its response");
ok t_cmp(count(log_from($off), qr/idiom-warning-marker/), 1, 'it is in the error log');

# carpout to a file, for that script only
same('perl', "carpout.pl?$spool", "CGI::Carp's carpout: the script's warnings go to its file");
$off = -s $logf;
answer('/eperl/idioms/warns.pl');
my $carplog = slurp("$spool/carpout.log");
ok t_cmp(count($carplog, qr/carpout-marker/), 3, "the file has the script's warnings (mod_cgid's and two runs')");
ok t_cmp(count($carplog, qr/\] carpout\.pl: carpout-marker$/m), 3,
         "each stamped with the script's name, as CGI::Carp names the program under mod_cgid (the frames end at its top level)");
ok t_cmp(count($carplog, qr/idiom-warning-marker/), 0, "and not the next script's");
ok t_cmp(count(log_from($off), qr/idiom-warning-marker/), 1, 'which are in the error log');

# STDOUT reopened onto a file: the rest of the response goes there, the
# request ends, the next script answers on the same engine
same('perl', "outfile.pl?$spool", 'STDOUT reopened onto a file after the header: the client has what came before');
my ($code, undef, $body) = curl(url('/eperl/idioms/pid.pl'));
ok t_cmp("$code $body", "200 $ppid\n", 'the next request is answered by the same engine');
ok t_cmp(count(slurp("$spool/stdout.log"), qr/^into the file$/m), 3, 'the file has what was printed after (three runs)');
ok t_cmp(slurp("$spool/stdout.log"), qr/\A(?:into the file\n)+\z/, 'and nothing of the engine');
ok t_cmp(engine_pid('perl', 'pl'), $ppid, 'one Perl engine served all of it');

# Python
my $ypid = engine_pid('py', 'py');
ok t_cmp($ypid > 0 ? 1 : 0, 1, 'the Python engine answers');
my $want = answer('/cgidpy/idioms/exitmsg.py?cgid');
$off = -s $logf;
ok t_cmp(answer('/epy/idioms/exitmsg.py?engine'), $want, 'sys.exit("message") after output: the response as under mod_cgid');
ok t_cmp(count(log_from($off), qr/idiom-exit-message engine/), 1, 'and the message is in the error log');
same('py', 'pathinfo.py/raw%FFbyte', 'an undecodable byte in PATH_INFO prints (surrogateescape, as the interpreter of a CGI process)');
same('py', 'pathinfo.py/caf%C3%A9', 'UTF-8 in PATH_INFO');

same('perl', 'datapkg.pl', "__DATA__ in a package of the script's own: that package's DATA");
same('perl', 'english.pl', "`use English`: its \$PID and \$RS are perl's \$\$ and \$/, left as they are between runs");
same('perl', 'moddata.pl', "a module that reads its own __DATA__ at each call: each run from its start");
# exec (Debian's dwww): the program's output ends the response, as a CGI
# process's; the engine, which the exec replaced, lives on.
same('perl', 'exec.pl?q', 'exec: the program replaces the script, its output is the rest of the response');
same('perl', 'exec.pl?fail', 'an exec that fails returns: the script goes on, its variables fresh');
ok t_cmp(engine_pid('perl', 'pl'), $ppid, 'exec: the same Perl engine answers next');
# A program the script runs that reads its stdin to the end: a request's
# body, then end of file, as under CGI (the engine's descriptor 0 never
# ended: it waited there until the no-progress timeout).
for my $l (['perl', 'pl'], ['py', 'py']) {
    my ($lang, $ext) = @$l;
    same($lang, "childstdin.$ext", "$lang: a child reading stdin to its end on a GET: nothing, then end of file");
    same($lang, "childstdin.$ext", "$lang: on a POST: the body", '--data', 'a=b&c=d');
    same($lang, "childstdin.$ext?part", "$lang: the script reads 4 bytes, the child the rest", '--data', 'a=b&c=d');
}
# No file for the body (TMPDIR missing): said once (3219), and the script
# reads its body from the requests' pipe as before.
{
    my $at = -s $logf;
    my @got = map { answer('/epynotmp/idioms/bodyecho.py', '--data', "n=$_") } 1 .. 2;
    ok t_cmp(join('|', @got), "200 text/plain\nbody=[n=1]\n|200 text/plain\nbody=[n=2]\n",
             'TMPDIR unusable: each body still reaches its script');
    ok t_cmp(count(log_from($at), qr/CGIPLUS3219: [^\n]*cannot make a file for a request's body/), 1,
             'TMPDIR unusable: said once (3219)');
}
same('py', 'exec.py?q', 'os.exec: the program replaces the script, its output is the rest of the response');
same('py', 'exec.py?fail', 'an os.exec that fails raises: the script goes on');
ok t_cmp(engine_pid('py', 'py'), $ypid, 'os.exec: the same Python engine answers next');
same('perl', 'reconf.pl', 'defaults, then a required configuration that sets them again: its values at every run');
ok t_cmp(answer('/eperl/idioms/reconf.pl'),
         qr/^title=from reconf\.conf tags=conf tags depth=2\nafter a second require: title=changed by the run$/m,
         "a third run: the configuration's values, not the default nor what the last run set; a second require in the run does nothing");

# A script reached through a symbolic link (idioms/where.* -> real/): its
# own paths as perl and python3 give them under mod_cgid.
same('perl', 'where.pl', "through a link: \$0, __FILE__ and the working directory the link's, FindBin's RealBin the file's");
ok t_cmp(answer('/eperl/idioms/where.pl'), qr/^\$0 ROOT\/engine\/perl\/idioms\/where\.pl\n.*^beside the link: found$/ms,
         'so a file beside the link is found from $0 (as cvsweb finds its cvsweb.conf)');
same('py', 'where.py', "through a link: sys.path[0] the file's directory, sys.argv[0] and __file__ the link, the working directory the link's");
ok t_cmp(answer('/epy/idioms/where.py'), qr/^path0 ROOT\/engine\/python\/idioms\/real\n.*^sibling the real directory's$/ms,
         "so a module beside the file imports, as python3 finds it");
# Switches on a python #! line, which the kernel passes to python3:
# -u (what the script writes goes out as it writes, before a child's
# output), -O, -W. The engine ignored them: the -u script's child wrote
# before its header (500), asserts ran, the warning passed.
same('py', 'switch_u.py', '#!/usr/bin/python3 -u: unbuffered, a child writes after the header');
same('py', 'switch_none.py', 'and the next script buffered again (a 500 under both)');
same('py', 'switch_O.py', '#!/usr/bin/python3 -O: asserts and __debug__ off');
same('py', 'switch_W.py', '#!/usr/bin/python3 -W error::UserWarning: the filter applies');
# The program a #! line names must be there, and for Python be a python3,
# for the engine to run the file: a python2, a name env finds nowhere on
# the scope's PATH, a CR after the name (Windows line ends), a perl in
# /usr/local fail under mod_cgid (the kernel's or env's "no such file":
# 500) and ran on the engine (200); they run as plain CGI, as there (3760).
# Where such a program is there, both run it.
my $names_at = -s $logf;
same('py', 'name_py2.py', '#!/usr/bin/python2: plain CGI, as mod_cgid runs it');
same('py', 'name_env.py', '#!/usr/bin/env python3-nosuch: the same');
same('py', 'name_crlf.py', '#!/usr/bin/python3 and a CR: the same');
same('perl', 'name_local.pl', '#!/usr/local/bin/perl: the same');
my $names_log = log_from($names_at);
ok t_cmp(join(' ', map { count($names_log, qr/CGIPLUS3760: \S+\/idioms\/\Q$_\E: the interpreter its #! line names, /) } qw(name_py2.py name_env.py name_crlf.py)),
         '2 2 2', 'each is logged at debug (3760), twice');
# and PYTHONUNBUFFERED, PYTHONWARNINGS, PYTHONIOENCODING, PYTHONPATH from
# SetEnv, as python3 reads them under CGI, unless -E; then a run without them
for my $s (['switch_none.py', 'SetEnv PYTHONUNBUFFERED 1: unbuffered'],
           ['enc.py', 'SetEnv PYTHONIOENCODING latin-1: the streams encode so', '--data-binary', "\xe9t\xe9"],
           ['pythonpath.py', 'SetEnv PYTHONPATH: a module from there, after the script\'s directory'],
           ['warn.py', 'SetEnv PYTHONWARNINGS error::UserWarning: the filter applies'],
           ['switch_E.py', '#!/usr/bin/python3 -E: no PYTHONUNBUFFERED (a 500 under both)']) {
    my ($script, $name, @args) = @$s;
    my $want = answer("/cgidpyenv/idioms/$script", @args);
    my @got = map { answer("/epyenv/idioms/$script", @args) } 1 .. 2;
    ok t_cmp("$got[0]\n--\n$got[1]", "$want\n--\n$want", "$name: as under mod_cgid, twice");
}
ok t_cmp(answer('/epyenv/idioms/switch_none.py'), qr/^before the child\nfrom the child\n/m,
         'PYTHONUNBUFFERED: the child writes after the header');
same('py', 'warn.py', 'without PYTHONWARNINGS: the warning passes');
same('py', 'pythonpath.py', 'without PYTHONPATH: no such module');
# on one engine, with PYTHONPATH, then without: the module found there is
# not the run's without it (the modules of a directory are kept per
# PYTHONPATH)
same('py', 'pythonpath.py', 'a PYTHONPATH for one request: the module from there',
     '-H', 'X-With-Pythonpath: 1');
same('py', 'pythonpath.py', 'and the next without it: no such module');
same('py', 'enc.py', "without PYTHONIOENCODING: the engine's encoding again", '--data-binary', "\xc3\xa9t\xc3\xa9");
ok t_cmp(engine_pid('py', 'py'), $ypid, 'one Python engine served all of it');

# printenv: the response complete (the script's last line comes), twice;
# the same names as under mod_cgid, in the script and in its child, none
# of the protocol's markers; and the engine lives on.
sub names {
    my ($body, $part) = @_;
    my ($own, $child) = $body =~ /\A(.*?)^--child\n(.*?)^--end\n/ms;
    my $text = ($part eq 'own' ? $own : $child) // '';
    return join ' ', grep { !/^POOL_idioms$/ }
        sort map { /^([A-Za-z_][A-Za-z0-9_]*)=/ ? $1 : () } split /\n/, $text;
}
for my $l (['perl', 'pl', $ppid], ['py', 'py', $ypid]) {
    my ($lang, $ext, $pid) = @$l;
    my (undef, undef, $want) = curl(url("/cgid$lang/idioms/printenv.$ext"));
    my @got = map { (curl(url("/e$lang/idioms/printenv.$ext")))[2] } 1 .. 2;
    ok t_cmp(join(' ', map { /^--end\n\z/m ? 'complete' : 'cut (' . length($_) . ' bytes)' } @got),
             'complete complete', "$lang printenv: both responses complete");
    ok t_cmp(names($got[1], 'own'), names($want, 'own'), "$lang printenv: the variables of mod_cgid's run, no CGIplus marker");
    ok t_cmp(names($got[1], 'child'), names($want, 'child'), "$lang printenv: and its child's");
    ok t_cmp(engine_pid($lang, $ext), $pid, "$lang printenv: the same engine answers next");
}
