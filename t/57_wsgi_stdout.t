# What a WSGI application prints goes to the error log, as under mod_wsgi,
# never into a response. Before, cgiplus-wsgi left sys.stdout and
# descriptor 1 as the response stream: print(data, flush=True) before
# start_response became response headers (a query with a newline set any
# header), an unflushed print was appended to the body, and a background
# thread's print landed in whatever request the worker served then
# (another client's 502 or body) or, between requests, had the worker
# stopped as broken. A child process that inherits descriptor 1 is the
# same. On the direct path, relayed, and in plain-CGI mode; one worker, so
# the second request meets the first one's thread.
use strict;
use warnings FATAL => 'all';
use Apache::Test;
use Apache::TestUtil;
use File::Path qw(make_path remove_tree);
use Time::HiRes qw(sleep);
use lib 't/lib', 't/htdocs/apps';
use MainLog qw(log_offset log_since);
use AppTest qw(write_file curl url);

my $vars = Apache::Test::config()->{vars};
my $dir = "$vars->{t_logs}/launch/stdout";
my $wsgi = "$vars->{top_dir}/lib/python/cgiplus-wsgi";
remove_tree($dir);
make_path("$dir/relayed", "$dir/flags");
chmod 0755, $dir, "$dir/relayed";
chmod 0777, "$dir/flags";

# ?early-X: prints X (flushed) before start_response; ?late-X: prints X
# unflushed; ?child-X: a child process prints X on the inherited
# descriptor 1; ?thread-X: a thread waits until a later request says it
# runs (?wait-X), then prints X, which that request waits for; ?fork-X: a
# forked child closes 0-2 and, once a later request runs (?forkwait-X,
# which waits for it), writes X to every descriptor it has.
write_file("$dir/printapp.py", <<"PY", 0644);
import os, subprocess, sys, threading, time, urllib.parse
FLAGS = "$dir/flags"
printed = threading.Event()
def later(what):
    for _ in range(400):
        if os.path.exists(os.path.join(FLAGS, "go")):
            break
        time.sleep(0.05)
    print(what, flush=True)
    printed.set()
def app(environ, start_response):
    q = urllib.parse.unquote_plus(environ.get("QUERY_STRING", ""))
    kind, _, what = q.partition("-")
    if kind == "early":
        print(what, flush=True)
    elif kind == "late":
        print(what)
    elif kind == "child":
        subprocess.call(["/bin/echo", what])
    elif kind == "thread":
        printed.clear()
        threading.Thread(target=later, args=(what,)).start()
    elif kind == "wait":
        open(os.path.join(FLAGS, "go"), "w").close()
        printed.wait(20)
    elif kind == "fork" and os.fork() == 0:
        # a daemon: it closes 0-2, then writes to every descriptor it still
        # has once a later request runs
        for fd in (0, 1, 2):
            os.close(fd)
        for _ in range(400):
            if os.path.exists(os.path.join(FLAGS, "go")):
                break
            time.sleep(0.05)
        for fd in range(3, 100):
            try:
                os.write(fd, ("%s fd %d\\n" % (what, fd)).encode())
            except OSError:
                pass
        open(os.path.join(FLAGS, "forked"), "w").close()
        os._exit(0)
    elif kind == "forkwait":
        open(os.path.join(FLAGS, "go"), "w").close()
        for _ in range(400):
            if os.path.exists(os.path.join(FLAGS, "forked")):
                break
            time.sleep(0.05)
    start_response("200 OK", [("Content-Type", "text/plain")])
    return [("answer to %s pid %d\\n" % (kind, os.getpid())).encode()]
PY
for my $d ($dir, "$dir/relayed") {
    write_file("$d/p.cgp", "#!$wsgi\napp printapp:app\npath $dir\n");
    write_file("$d/cgi-p.cgp", "#!$wsgi\napp printapp:app\npath $dir\n");
}

my @where = (['direct', '/launch/stdout/p.cgp'], ['relayed', '/launch/stdout/relayed/p.cgp'],
             ['plain CGI', '/launch/stdout/cgi-p.cgp']);
plan tests => 7 * @where + 5 * 2 + 3 * 2;

sub logged {
    my ($off, $what) = @_;
    for (1 .. 200) {
        return 1 if log_since($off) =~ /CGIPLUS105[02]: stderr from \S+p\.cgp\b.*: \Q$what\E$/m;
        sleep 0.1;
    }
    return 0;
}

my $n = 0;
for my $w (@where) {
    my ($how, $path) = @$w;
    $n++;
    my $off = log_offset();
    my $inj = "X-Injected:%20$n%0AX-Two:%20yes";
    my ($code, $h, $body) = curl(url("$path?early-$inj"));
    ok t_cmp("$code $body", qr/^200 answer to early pid \d+\n\z/, "$how: a print before start_response: the answer alone");
    ok t_cmp(join(' ', grep { defined } @$h{qw(x-injected x-two)}), '', "$how: and it set no header");
    ok t_cmp(logged($off, "X-Injected: $n"), 1, "$how: it is in the error log, naming the script");
    ($code, $h, $body) = curl(url("$path?late-unflushed$n"));
    ok t_cmp("$code $body", qr/^200 answer to late pid \d+\n\z/, "$how: an unflushed print is not in the body");
    ok t_cmp(logged($off, "unflushed$n"), 1, "$how: it is in the error log");
    ($code, $h, $body) = curl(url("$path?child-childout$n"));
    ok t_cmp("$code $body", qr/^200 answer to child pid \d+\n\z/, "$how: a child's output is not in the body");
    ok t_cmp(logged($off, "childout$n"), 1, "$how: it is in the error log");
}

# A thread prints while the same worker serves another request.
for my $w (@where[0, 1]) {
    my ($how, $path) = @$w;
    unlink "$dir/flags/go";
    my $off = log_offset();
    my ($c1, undef, $b1) = curl(url("$path?thread-SECRET+OF+THE+FIRST+CLIENT+$how"));
    my ($c2, undef, $b2) = curl(url("$path?wait-x"));
    my ($p1) = $b1 =~ /pid (\d+)/;
    my ($p2) = $b2 =~ /pid (\d+)/;
    ok t_cmp("$c1 $b1", qr/^200 answer to thread pid \d+\n\z/, "$how: the thread's request answered");
    ok t_cmp("$c2 $b2", qr/^200 answer to wait pid \d+\n\z/,
             "$how: the next request gets its own answer, nothing of the thread's");
    ok t_cmp($p2 // '', $p1 // 'none', "$how: by the same worker (one per pool)");
    ok t_cmp(logged($off, "SECRET OF THE FIRST CLIENT $how"), 1, "$how: the thread's line is in the error log");
    ok t_cmp(scalar(grep { /CGIPLUS(?:1130|1705|2025):/ } split /\n/, log_since($off)), 0,
             "$how: no worker was stopped as broken");
}

# A process the application forks, writing to every descriptor it has
# while the same worker serves another request.
for my $w (@where[0, 1]) {
    my ($how, $path) = @$w;
    unlink "$dir/flags/go", "$dir/flags/forked";
    my $off = log_offset();
    my ($c1, undef, $b1) = curl(url("$path?fork-FORKED+CHILD+OF+THE+FIRST+CLIENT"));
    my ($c2, undef, $b2) = curl(url("$path?forkwait-x"));
    ok t_cmp("$c1 $b1", qr/^200 answer to fork pid \d+\n\z/, "$how: the forking request answered");
    ok t_cmp("$c2 $b2", qr/^200 answer to forkwait pid \d+\n\z/,
             "$how: the next request gets its own answer, nothing of the child's");
    ok t_cmp(scalar(grep { /CGIPLUS(?:1130|1705|2025|1076):/ } split /\n/, log_since($off)), 0,
             "$how: no worker was stopped as broken, no bad header");
}
