# What a script's leftovers print (a child it forked that keeps stdout, a
# grandchild of a double fork, a Python daemon thread, a detached Perl
# thread) never reaches another client's response. Before,
# the engine ended the response as the script returned; the child (or
# thread) printed a moment later into the engine's one stdout, into
# whatever request the engine served then: here ?slow, another client's
# request on the same engine (a pool of one), got "late output of the
# child" (or "of the thread") in its page. Now, as mod_cgi waits for
# every holder of the script's stdout, the engine waits for the processes
# that still hold its response before it ends it (their output is that
# response's, as under mod_cgid, the reference); a run that leaves a
# thread running has its engine replaced after the response (the thread
# dies, as at a CGI process's exit). Both engines, on the direct path and relayed.
use strict;
use warnings FATAL => 'all';
use Apache::Test;
use Apache::TestUtil;
use lib 't/lib', 't/htdocs/apps';
use AppTest qw(curl url);
use MainLog qw(log_offset log_since log_wait);

my $vars = Apache::Test::config()->{vars};
for my $f (qw(engine_leftover_flag engine_leftover_pid engine_leftover_go)) {
    my $p = "$vars->{t_logs}/$f";
    open my $fh, '>', $p or die "$p: $!";
    close $fh;
    chmod 0666, $p;
}

# [ name, the engine's URL, mod_cgid's, the query ]
my @cases = (['perl child', '/eperl/leftover.pl', '/cgidperl/leftover.pl', 'leave'],
             ['perl child relayed', '/eperlr/leftover.pl', '/cgidperl/leftover.pl', 'leave'],
             ['perl double fork', '/eperl/leftover.pl', '/cgidperl/leftover.pl', 'daemon'],
             ['perl double fork relayed', '/eperlr/leftover.pl', '/cgidperl/leftover.pl', 'daemon'],
             ['perl thread', '/eperl/leftover.pl', '/cgidperl/leftover.pl', 'thread'],
             ['perl thread relayed', '/eperlr/leftover.pl', '/cgidperl/leftover.pl', 'thread'],
             ['python child', '/epy/leftover.py', '/cgidpy/leftover.py', 'leave'],
             ['python child relayed', '/epyr/leftover.py', '/cgidpy/leftover.py', 'leave'],
             ['python double fork', '/epy/leftover.py', '/cgidpy/leftover.py', 'daemon'],
             ['python double fork relayed', '/epyr/leftover.py', '/cgidpy/leftover.py', 'daemon'],
             ['python daemon thread', '/epy/leftover.py', '/cgidpy/leftover.py', 'thread'],
             ['python daemon thread relayed', '/epyr/leftover.py', '/cgidpy/leftover.py', 'thread']);
plan tests => 5 * @cases + 4;

# The engine's line for what the script left: a process holding stdout
# (waited for: 3317 Perl, 3315 Python), threads (engine retired: 3318, 3316).
sub line_for {
    my ($path, $q) = @_;
    my $py = $path =~ /\.py\z/;
    return $q eq 'thread' ? ($py ? 3316 : 3318) : ($py ? 3315 : 3317);
}

for my $c (@cases) {
    my ($how, $path, $ref, $q) = @$c;
    my ($rcode, undef, $rbody) = curl(url("$ref?$q"));
    ok t_cmp($rcode, 200, "$how: mod_cgid answers");
    curl(url("$path?first"));       # the engine is up
    my $off = log_offset();
    my ($code, $h, $body) = curl(url("$path?$q"));
    ok t_cmp("$code $body", "$rcode $rbody", "$how: the response is mod_cgid's");
    # another client's request, on the same engine while the leftover lives
    ($code, $h, $body) = curl(url("$path?slow"));
    ok t_cmp("$code $body", "200 answer to slow\n", "$how: the next client gets nothing of it");
    ok t_cmp(join("\n", grep { /CGIPLUS(?:1130|1131|1705|2025|1076):/ } split /\n/, log_since($off)), '',
             "$how: no worker stopped as broken, no bad header");
    my $id = line_for($path, $q);
    ok t_cmp(log_wait($off, qr/CGIPLUS$id: \S+: \S*leftover\.p[ly]\b/), 1, "$how: logged $id");
}

# multiprocessing's resource tracker (shared_memory) holds stdout and lives
# on in the engine, serving its later runs: it is not waited for (under
# mod_cgid it ends with the process).
my (undef, undef, $shm) = curl(url('/cgidpy/leftover.py?shm'));
for my $path ('/epy/leftover.py', '/epyr/leftover.py') {
    for my $n (1, 2) {
        my ($code, undef, $body) = curl(url("$path?shm"));
        ok t_cmp("$code $body", "200 $shm", "$path?shm, run $n: answered as under mod_cgid");
    }
}
