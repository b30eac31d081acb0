# A FastCGI application that ends its side of the connection after each
# request (shutdown(SHUT_WR): node-fastcgi's socket.end() when a response
# is over) but reads on (t/htdocs/fcgi/halfclose.py, threaded as node is).
# Its end of file is there before the next request, but writes still
# succeed: on the direct path that request was written on the ended
# connection, read and run by the application, whose answer went nowhere:
# 502 (500 under the fcgid-script drop-in), the second request of every
# worker. Now a child that finds the end of file already there writes
# nothing, the worker is learnt as closing after each request (2926) and
# the request goes through the runner on a new connection. 8 requests one
# after the other on one worker, on the direct path, relayed and under
# the drop-in in a private httpd, then against mod_fcgid with the same
# lines: each 200 with its own answer, each run once, no 1064.
# The same with the end 100 ms after END_REQUEST (delay=100), on a fresh
# worker: the second request's BEGIN_REQUEST (the probe) was read, then
# the end of file came, and the rest went: it ran with its answer lost
# (502). BEGIN_REQUEST alone names nothing to run: it goes again on a new
# connection now.
use strict;
use warnings FATAL => 'all';
use Apache::Test;
use Apache::TestUtil;
use File::Copy qw(copy);
use lib 't/lib', 't/htdocs/apps';
use PrivateHttpd qw(private_conf private_start private_stop private_dir libexec);
use FreePort qw(free_port);
use AppTest qw(curl write_file lines_of);

my $n = 8;
my @ours = (['direct', '/fx/'], ['relayed', '/fr/'], ['the fcgid-script drop-in', '/fd/']);
my @delays = (0, 100);
plan tests => 2 + @delays * (@ours * (2 * $n + 1) + 1 + (2 * $n + 1)),
    need { 'needs python3' => -x '/usr/bin/python3',
           'needs mod_fcgid (libapache2-mod-fcgid)' => -f libexec() . '/mod_fcgid.so' };

my $port = $ENV{CGIPLUS_PRIVATE_PORT} // free_port();
my $lib = libexec();

sub text { open my $fh, '<', $_[0] or return ''; local $/; <$fh> }

# $n requests to $base one after the other: each 200 with its own answer,
# run once by the application (its ledger), and all on one process.
sub run_seq {
    my ($base, $name, $ledger, $delay) = @_;
    my %pids;
    $name .= ", the end ${delay} ms after END_REQUEST";
    for my $i (1 .. $n) {
        (my $tag = $name) =~ tr/a-z0-9//cd;
        my $tok = "delay=$delay&n=$$-$tag-$i";
        my ($code, $h, $got) = curl(($i % 2 ? ('--data-binary', 'body') : ()), "$base?$tok");
        my $len = $i % 2 ? 4 : 0;
        ok t_cmp("$code $got", qr/^200 \Q$tok\E pid=(\d+) body=$len\n\z/, "$name, request $i: served");
        $pids{$1}++ if $got =~ /pid=(\d+)/;
        my $ran = grep { /^\d+ \Q$tok\E$/ } lines_of($ledger);
        ok t_cmp($ran, 1, "$name, request $i: the application ran it once");
    }
    ok t_cmp(scalar(keys %pids), 1, "$name: one process served them all");
}

for my $peer (0, 1) {
    my $dir = private_dir("fcgi-halfclose-$peer");
    mkdir "$dir/app";
    chmod 0755, "$dir/app";
    for my $delay (@delays) { # a program (pools of its own) for each round
        copy('t/htdocs/fcgi/halfclose.py', "$dir/app/halfclose$delay.py") or die "copy: $!";
        chmod 0755, "$dir/app/halfclose$delay.py";
    }
    copy('t/htdocs/fcgi/fcgirec.py', "$dir/app/fcgirec.py") or die "copy: $!";
    write_file("$dir/ledger", '', 0666);
    my $extra = "LoadModule alias_module $lib/mod_alias.so\n";
    if ($peer) {
        $extra .= "LoadModule fcgid_module $lib/mod_fcgid.so\nFcgidIPCDir $dir/ipc\n";
    }
    else {
        for my $c (['/fx/', ''], ['/fr/', "    CGIplusDirect off\n"]) {
            $extra .= <<"CONF";
Alias $c->[0] $dir/app/
<Location $c->[0]>
    SetHandler cgiplus-script
    CGIplusMode fastcgi
    CGIplusMaxWorkers 1
    CGIplusSetEnv FCGI_LEDGER $dir/ledger
$c->[1]</Location>
CONF
        }
    }
    $extra .= <<"CONF";
Alias /fd/ $dir/app/
<Location /fd/>
    SetHandler fcgid-script
</Location>
<Directory $dir/app>
    Options +ExecCGI
    Require all granted
</Directory>
FcgidMaxProcessesPerClass 1
FcgidInitialEnv FCGI_LEDGER $dir/ledger
CONF
    write_file("$dir/httpd.conf", private_conf($dir, $port, [], $extra), 0644);
    my $name = $peer ? 'mod_fcgid' : 'mod_cgiplus';
    ok t_cmp(private_start("$dir/httpd.conf", $port), 1, "$name: httpd starts");
    for my $delay (@delays) {
        my $mark = length text("$dir/error_log");
        for my $c ($peer ? (['mod_fcgid', '/fd/']) : @ours) {
            run_seq("http://127.0.0.1:$port$c->[1]halfclose$delay.py", $c->[0], "$dir/ledger", $delay);
        }
        unless ($peer) {
            my @bad = substr(text("$dir/error_log"), $mark) =~ /(CGIPLUS(?:1064|2015|2903)\b[^\n]*)/g;
            ok t_cmp(scalar(@bad) ? $bad[0] : 'none', 'none',
                     "the end $delay ms after END_REQUEST: no request failed, no worker lost");
        }
    }
    private_stop("$dir/httpd.pid");
}
