# The engines' failure paths that come from the machine, not the script:
# each is logged with its id, naming the script, the request is answered as
# the docs say, nothing runs twice, and the next request is fine.
# - A script with an exec, whose run forks first (3217, 3238), when the
#   pool's user may start no more processes (CGIplusRLimit nproc 1, a user
#   of its own): the fork fails (3218, 3239) and the script is not run:
#   500, as mod_cgi answers a script it cannot fork for; the engine goes on.
# - No file in TMPDIR for a request's body (3219, 3240): the body still
#   reaches the script, said once per engine.
# - The body's file cannot be written whole (a full disk: TMPDIR on a
#   tmpfs of 128 KiB the test mounts, so it runs as root): the script gets
#   the part kept (3220, 3241).
use strict;
use warnings FATAL => 'all';
use Apache::Test;
use Apache::TestUtil;
use Time::HiRes qw(sleep);
use lib 't/lib';
use PrivateHttpd qw(private_conf private_start private_dir private_log private_wait_log);
use FreePort qw(free_port);

plan tests => 3 + 2 * 12 + 4;

my $vars = Apache::Test::config()->{vars};
my $top = $vars->{top_dir};
# The full disk, outside the private directory (which is removed whole).
my $full = "$vars->{t_logs}/err-engine-full";
system('umount', $full) if -d $full && `findmnt -n -o TARGET '$full'` =~ /\S/;
mkdir $full;
my $mounted = system('mount', '-t', 'tmpfs', '-o', 'size=128k,mode=1777', 'cgiplus-full', $full) == 0;
END { system('umount', $full) if $mounted }
my $dir = private_dir('err-engine');
# A uid no process has: nproc 1 leaves its engine alone, and no fork.
my $uid = 25678;
for my $d (qw(py pl)) {
    mkdir "$dir/$d" or die "$dir/$d: $!";
    chmod 0755, "$dir/$d";
}
my %files = (
    'py/ok.py' => "#!/usr/bin/python3\nimport os\nprint('Content-Type: text/plain\\n\\nok %d' % os.getpid())\n",
    'pl/ok.pl' => "#!/usr/bin/perl\nprint \"Content-Type: text/plain\\n\\nok \$\$\\n\";\n",
    'py/exec.py' => "#!/usr/bin/python3\nimport os\nprint('Content-Type: text/plain\\n\\nthe script', flush=True)\n"
                  . "os.execv('/bin/echo', ['echo', 'the program'])\n",
    'pl/exec.pl' => "#!/usr/bin/perl\n\$| = 1;\nprint \"Content-Type: text/plain\\n\\nthe script\\n\";\n"
                  . "exec '/bin/echo', 'the program';\n",
    'py/body.py' => "#!/usr/bin/python3\nimport os, sys\nb = sys.stdin.buffer.read()\n"
                  . "print('Content-Type: text/plain\\n\\ngot %d of %s' % (len(b), os.environ.get('CONTENT_LENGTH')))\n",
    'pl/body.pl' => "#!/usr/bin/perl\nbinmode STDIN;\nmy \$b = '';\n1 while read(STDIN, \$b, 65536, length \$b);\n"
                  . "print \"Content-Type: text/plain\\n\\ngot \", length(\$b), \" of \$ENV{CONTENT_LENGTH}\\n\";\n",
);
$files{big} = 'x' x (300 * 1024);
$files{'pl/enddie.pl'} = "#!/usr/bin/perl\nprint \"Content-Type: text/plain\\n\\nanswered \$\$\\n\";\nEND { die \"end-marker\\n\" }\n";
# where the Perl engine kept the body: descriptor 0's file, deleted at once
$files{'pl/tmpdir.pl'} = "#!/usr/bin/perl\nmy \$f = readlink '/proc/self/fd/0';\n"
    . "print \"Content-Type: text/plain\\n\\nstdin is \", (\$f =~ m{\\A/tmp/} ? 'a file in /tmp' : \$f), \"\\n\";\n";
for my $f (sort keys %files) {
    open my $fh, '>', "$dir/$f" or die "$dir/$f: $!";
    print $fh $files{$f};
    close $fh;
    chmod 0755, "$dir/$f";
}

my %engine = (py => "$top/lib/python/cgiplus-engine-python", pl => "$top/lib/perl/cgiplus-engine-perl");
my $scopes = '';
for my $l (qw(py pl)) {
    $scopes .= <<"CONF";
Alias /${l}x/ $dir/$l/
Alias /${l}t/ $dir/$l/
Alias /${l}b/ $dir/$l/
<Directory $dir/$l>
    Require all granted
    Options +ExecCGI
    SetHandler cgiplus-script
    CGIplusEngine $engine{$l}
    CGIplusMaxWorkers 1
</Directory>
<Location /${l}x/>
    CGIplusUser #$uid #$uid
    CGIplusRLimit nproc 1
</Location>
<Location /${l}t/>
    CGIplusSetEnv TMPDIR /nonexistent/cgiplus-notmp
</Location>
<Location /${l}b/>
    CGIplusSetEnv TMPDIR $full
</Location>
CONF
}
my $port = free_port();
open my $cf, '>', "$dir/httpd.conf" or die "httpd.conf: $!";
print $cf private_conf($dir, $port, ['alias'], "LogLevel info cgiplus:info\n$scopes");
close $cf;
private_start("$dir/httpd.conf", $port) or die "httpd did not start\n";
ok t_cmp(1, 1, 'the private httpd started');

# (status, body) of a request; curl, so a POST body is easy
sub req {
    my ($path, @args) = @_;
    open my $fh, '-|', 'curl', '-s', '--max-time', '20', '-w', '\n%{http_code}', @args,
        "http://127.0.0.1:$port$path" or die "curl: $!";
    local $/;
    my $out = <$fh> // '';
    close $fh;
    my $rc = $? >> 8;
    return $out =~ /\A(.*)\n(\d{3})\z/s ? ($2, $1, $rc) : (0, $out, $rc);
}
sub count { my ($re) = @_; my $n = () = private_log($dir) =~ /$re/g; return $n }

ok t_cmp($mounted ? 1 : 0, 1, "a tmpfs of 128 KiB mounted on $full");

my %id = (py => {fork => 3218, notmp => 3219, write => 3220, exec => 3217},
          pl => {fork => 3239, notmp => 3240, write => 3241, exec => 3238});
for my $l (qw(py pl)) {
    my $id = $id{$l};
    my $e = $l eq 'py' ? 'python' : 'perl';
    # The fork for the exec fails: not run, as mod_cgi runs nothing it
    # cannot fork for: 500 (1324). (It ran in the engine, whose exec then
    # replaced the engine mid-response: a 500 or a cut 200 by a race, and
    # a new engine each time.) The engine goes on.
    my ($code, $body) = req("/${l}x/ok.$l");
    my ($first) = $body =~ /^ok (\d+)$/m;
    ok t_cmp("$code $body", qr/\A200 ok \d+\n\z/, "$l, nproc 1: a script without exec runs");
    ($code, $body) = req("/${l}x/exec.$l");
    ok t_cmp($code . ($body =~ /the script|the program/ ? ' ran' : ''), 500,
             "$l, nproc 1: a script with an exec that cannot fork for its run: 500, not run");
    ok t_cmp(private_wait_log($dir, qr{CGIPLUS1324: End of script output before headers: \Q$dir\E/$l/exec\.$l}), 1,
             "$l: answered as a script that wrote nothing (1324)");
    ok t_cmp(private_wait_log($dir, qr{CGIPLUS$id->{fork}: cgiplus-engine-$e: \Q$dir\E/$l/exec\.$l: cannot fork for its run \(Resource temporarily unavailable\): not run; the request ends without output}), 1,
             "$l: the failed fork is logged ($id->{fork}), naming the script");
    ($code, $body) = req("/${l}x/ok.$l");
    my ($second) = $body =~ /^ok (\d+)$/m;
    ok t_cmp("$code " . (($second // 0) == ($first // -1) ? 'the same engine' : 'another engine'), '200 the same engine',
             "$l: the next request is served by the same engine");
    ok t_cmp(count(qr{CGIPLUS$id->{fork}:}), 1, "$l: one $id->{fork} line: nothing ran twice");

    # TMPDIR unusable: every body still reaches the script. Python says so
    # once (3219: the body stays in the requests' pipe); Perl's anonymous
    # file is made in /tmp then, as Perl makes it, and nothing is said.
    my @got = map { join ' ', (req("/${l}t/body.$l", '--data-binary', "n=$_"))[0, 1] } 1 .. 2;
    ok t_cmp("@got", "200 got 3 of 3\n 200 got 3 of 3\n", "$l, TMPDIR unusable: each body reaches the script");
    if ($l eq 'py') {
        ok t_cmp(private_wait_log($dir, qr{CGIPLUS3219: cgiplus-engine-python: cannot make a file for a request's body \(No such file or directory\)}), 1,
                 "py, TMPDIR unusable: logged (3219)");
        ok t_cmp(count(qr{CGIPLUS3219:}), 1, "py, TMPDIR unusable: said once per engine");
    }
    else {
        ($code, $body) = req("/${l}t/tmpdir.pl", '--data-binary', 'n=1');
        ok t_cmp("$code $body", "200 stdin is a file in /tmp\n", 'pl, TMPDIR unusable: the body is kept in /tmp');
        ok t_cmp(count(qr{CGIPLUS3240:}), 0, 'pl, TMPDIR unusable: nothing to say (3240 is for /tmp failing too)');
    }

    # The body's file cannot be written whole: the script gets what was kept.
    ($code, $body) = req("/${l}b/body.$l", '--data-binary', "\@$dir/big", '-H', 'Content-Type: application/octet-stream');
    my ($kept) = $body =~ /^got (\d+) of 307200$/m;
    ok t_cmp($code == 200 && $kept && $kept > 64 * 1024 && $kept < 300 * 1024 ? 1 : "$code $body", 1,
             "$l, the body's file full: the script gets the part kept");
    ok t_cmp(private_wait_log($dir, qr{CGIPLUS$id->{write}: cgiplus-engine-$e: cannot keep a request's body in its file \(No space left on device\): the script gets its first \d+ bytes}), 1,
             "$l, the body's file full: logged ($id->{write})");
    ($code, $body) = req("/${l}b/body.$l", '--data-binary', 'small');
    ok t_cmp("$code $body", "200 got 5 of 5\n", "$l: the next body is whole");
}
ok t_cmp(private_log($dir) =~ /CGIPLUS3214|CGIPLUS3234|CGIPLUS1064|CGIPLUS1072|CGIPLUS1324: [^\n]*(?:ok|body)\.(?:py|pl)/ ? 1 : 0, 0,
         'no other request failed');

# An END block that dies: the response is the script's, as under CGI; the
# error is logged (3234, "END failed"); the engine goes on.
my @end = map { [req('/plt/enddie.pl')] } 1 .. 2;
ok t_cmp("$end[0][0] $end[0][1]", qr/\A200 answered \d+\n\z/, 'an END that dies: the response is the script\'s');
ok t_cmp(private_wait_log($dir, qr{CGIPLUS3234: cgiplus-engine-perl: \Q$dir\E/pl/enddie\.pl: END failed: end-marker}), 1,
         'and its error is logged (3234)');
ok t_cmp("$end[1][0] $end[1][1]", "$end[0][0] $end[0][1]", 'the same engine answers the next request');
# (the die message's line end made an empty line after the 3234 line)
ok t_cmp(private_log($dir) =~ /CGIPLUS1050: stderr from \S+\/enddie\.pl \(pid \d+\): $/m ? 1 : 0, 0,
         'and no empty line after it');
