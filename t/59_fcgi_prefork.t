# A request never runs twice on a FastCGI worker. A pre-fork application
# (t/htdocs/fcgi/prefork.pl: the parent keeps the listening socket, a child
# accepts; FCGI::ProcManager, php-cgi with PHP_FCGI_CHILDREN, a libfcgi
# program that forks) whose child reads a request's BEGIN_REQUEST and
# PARAMS, acts on them (a line in a file) and dies without reading the
# body, the parent still listening, leaves that request partly unread: the
# connection reports ECONNRESET, which only says SOME bytes were unread.
# Such a request was sent again on a new connection (2927, or handed back
# and relayed, 1131), so it ran twice (or three times). Now a request goes
# again only when the application provably read none of it; this one fails
# as a worker that dies in a request does (502 in a CGIplusMode fastcgi
# scope, 500 in an fcgid-script one as under mod_fcgid, which runs it once
# too), on the direct path (/fcgi/) and relayed (/fcgir/), whether the
# child dies on a new connection, on a kept one whose liveness was unknown
# (its second request) or on one known to be kept. Each side effect once,
# and the worker serves on. The probe that keeps the race sending again
# needs (a request's BEGIN_REQUEST alone on a used connection of a worker
# not known yet to keep its connections) ran once per worker (1351 by a
# child, 2953 by the runner), then requests went whole.
use strict;
use warnings FATAL => 'all';
use Apache::Test;
use Apache::TestUtil;
use File::Copy qw(copy);
use lib 't/lib', 't/htdocs/apps';
use AppTest qw(curl url write_file);
use PrivateHttpd qw(private_stop private_dir libexec);
use FcgidPeer qw(fcgid_app_start);
use FreePort qw(free_port);

my @steps = qw(die ok die ok ok die ok);
plan tests => 2 * (2 * @steps) + 2 * 2 + 2 + 1 + (1 + 2 * @steps) + (1 + 2),
    need { 'needs FCGI (libfcgi-perl)' => !system('perl -MFCGI -e1 2>/dev/null'),
           'needs mod_fcgid (libapache2-mod-fcgid)' => -f libexec() . '/mod_fcgid.so' };

my $vars = Apache::Test::config()->{vars};
my $errlog = "$vars->{t_logs}/error_log";
my $ledger = "$vars->{t_logs}/fcgi-ledger.prefork"; # the pool's FCGI_LEDGER, .prefork
for my $f ("$vars->{t_logs}/fcgi-ledger", $ledger) {
    open my $fh, '>>', $f or die "$f: $!";
    close $fh;
    chmod 0666, $f;
}

sub ran {
    my ($n, $file) = @_;
    open my $fh, '<', $file // $ledger or return 0;
    return scalar grep { /^\d+ \S*\bn=\Q$n\E$/ } <$fh>;
}

my $body = 'b' x 40000; # more than libfcgi reads ahead (8 KiB): its child leaves most unread
for my $c (['direct', '/fcgi/prefork.pl'], ['relayed', '/fcgir/prefork.pl']) {
    my ($how, $path) = @$c;
    my $i = 0;
    for my $step (@steps) {
        $i++;
        my $n = "$$-$how-$i";
        my ($code, $h, $got) = curl('--data-binary', $body, url("$path?$step&n=$n"));
        if ($step eq 'die') {
            ok t_cmp($code, 502, "$how, request $i: its worker's child died in it: 502");
        }
        else {
            ok t_cmp("$code $got", qr/^200 pid=\d+ q=ok&n=\Q$n\E body=40000\n\z/,
                     "$how, request $i: served");
        }
        ok t_cmp(ran($n), 1, "$how, request $i ($step): the application ran it once");
    }
}

# A body the runner streams (1 MB, over CGIplusBodyBuffer): the child dies
# while the runner still writes it, so the write meets the close first. The
# request fails (502) once, and the application, whose parent still
# listens, serves on: before, a write that met the close took the worker
# for dying and killed it (the whole application) 2 s later (2015).
my $big = "$vars->{t_logs}/fcgi-prefork-body";
{ open my $fh, '>', $big or die "$big: $!"; print $fh 'b' x 1_000_000; close $fh }
my $mark = -s $errlog;
for my $i (1 .. 2) {
    my $n = "$$-big-$i";
    my ($code) = curl('--data-binary', "\@$big", url("/fcgir/prefork.pl?die&n=$n"));
    ok t_cmp($code, 502, "relayed, a streamed body, request $i: its worker's child died in it: 502");
    ok t_cmp(ran($n), 1, "relayed, a streamed body, request $i: the application ran it once");
}
my ($code, $h, $got) = curl('--data-binary', "\@$big", url("/fcgir/prefork.pl?ok&n=$$-big-ok"));
ok t_cmp("$code $got", qr/^200 pid=\d+ q=ok&n=\Q$$\E-big-ok body=1000000\n\z/,
         'relayed, a streamed body: served after');
my $killed = do { open my $fh, '<', $errlog or die; seek $fh, $mark, 0; local $/;
                  my @k = (<$fh> // '') =~ /(CGIPLUS2015: [^\n]*prefork\.pl[^\n]*)/g; $k[0] // 'none' };
ok t_cmp($killed, 'none', 'relayed, a streamed body: the application was not killed for it');

# Its two pools' workers were learnt as keeping their connections, each once.
open my $el, '<', $errlog or die "$errlog: $!";
my %kept;
$kept{$_}++ for map { /CGIPLUS(?:1351|2953): FastCGI worker pid (\d+) of \S+\/prefork\.pl keeps/ ? $1 : () } <$el>;
ok t_cmp(scalar(keys %kept) >= 2 && !grep({ $_ > 1 } values %kept) ? 1 : 0, 1,
         'each worker was learnt as keeping its connection once (' .
         join(' ', map { "$_:$kept{$_}" } sort keys %kept) . ')');

# The fcgid-script drop-in (mod_fcgid not loaded) in a private httpd, and
# mod_fcgid itself with the same lines: a request whose child dies in it
# is answered 500 (mod_fcgid's answer), and runs once, under either.
# (mod_fcgid then replaces the whole application, "communication error",
# and the next request waits for its process manager, seconds: one request
# there.)
my $port = $ENV{CGIPLUS_PRIVATE_PORT} // free_port();
for my $peer (0, 1) {
    my $dir = private_dir("fcgi-prefork-$peer");
    mkdir "$dir/app";
    chmod 0755, "$dir/app";
    copy('t/htdocs/fcgi/prefork.pl', "$dir/app/prefork.pl") or die "copy: $!";
    chmod 0755, "$dir/app/prefork.pl";
    write_file("$dir/ledger.prefork", '', 0666);
    my $name = fcgid_app_start($dir, $port, $peer, '/prefork/',
                               "FcgidMaxProcessesPerClass 1\nFcgidInitialEnv FCGI_LEDGER $dir/ledger\n");
    my $i = 0;
    for my $step ($peer ? ('die') : @steps) {
        $i++;
        my $n = "$$-$peer-$i";
        my ($code, $h, $got) = curl('--data-binary', $body,
                                    "http://127.0.0.1:$port/prefork/prefork.pl?$step&n=$n");
        if ($step eq 'die') {
            ok t_cmp($code, 500, "$name, request $i: its worker's child died in it: 500");
        }
        else {
            ok t_cmp("$code $got", qr/^200 pid=\d+ q=ok&n=\Q$n\E body=40000\n\z/,
                     "$name, request $i: served");
        }
        ok t_cmp(ran($n, "$dir/ledger.prefork"), 1,
                 "$name, request $i ($step): the application ran it once");
    }
    private_stop("$dir/httpd.pid");
}
