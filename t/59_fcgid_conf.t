# Issue 22, part 4: a drop-in for mod_fcgid configurations. With mod_fcgid
# not loaded, mod_fcgid's documented set-ups run unedited on mod_cgiplus:
# its PHP example (FcgidWrapper php-wrapper .php, AddHandler fcgid-script,
# Options +ExecCGI, Order/Allow) and its Perl CGI::Fast example (SetHandler
# fcgid-script), in a private httpd; only the site's paths differ (the
# example's /usr/local/... are its own installation's). Its directives mean
# what they mean there (pool settings of fcgid-script requests, its
# FcgidMaxRequestLen default answered 413), unused ones are accepted, what
# has no counterpart is refused with a sentence, every value is checked.
# With mod_fcgid loaded too, its directives are its own and httpd starts.
use strict;
use warnings FATAL => 'all';
use Apache::Test;
use Apache::TestUtil;
use JSON::PP ();
use lib 't/lib', 't/htdocs/pool/lib', 't/htdocs/apps';
use PrivateHttpd qw(private_conf private_start private_stop private_check fresh_dir libexec
                    pid_in private_log);
use FreePort qw(free_port);
use AppTest qw(write_file curl);
use POSIX ();
use Time::HiRes qw(sleep);

plan tests => 56,
    need { 'needs php-cgi' => -x '/usr/bin/php-cgi',
           'needs CGI::Fast' => !system('perl -MCGI::Fast -e1 2>/dev/null'),
           'needs mod_fcgid (libapache2-mod-fcgid)' => -f libexec() . '/mod_fcgid.so' };

my $vars = Apache::Test::config()->{vars};
my $dir = "$vars->{t_logs}/fcgid";
my $port = free_port();
my $base = "http://127.0.0.1:$port";
fresh_dir($dir);
chmod 0755, $dir;

# ---- the documentation's files, as it gives them
mkdir "$dir/phpapp";
mkdir "$dir/fcgi-bin";
chmod 0755, "$dir/phpapp", "$dir/fcgi-bin";
write_file("$dir/phpapp/phpinfo.php", "<?php\n  phpinfo();\n?>\n", 0644);
write_file("$dir/phpapp/pid.php", "<?php\necho 'pid=', getmypid(), \"\\nenv=\", getenv('FCGID_TEST_ENV'), "
           . "\"\\nauth=\", \$_SERVER['HTTP_AUTHORIZATION'] ?? '-', \"\\nchildren=\", getenv('PHP_FCGI_CHILDREN'), "
           . "\"\\n\";\n", 0644);
write_file("$dir/phpapp/ini.php", "<?php\necho ini_get('memory_limit'), '|', ini_get('highlight.comment'), "
           . "'|', getmypid(), \"\\n\";\n", 0644);
write_file("$dir/phpapp/page.phtml", "<?php\necho 'phtml by ', PHP_SAPI, \"\\n\";\n", 0644);
write_file("$dir/php-wrapper", <<'SH', 0755);
#!/bin/sh
# Set desired PHP_FCGI_* environment variables.
# Example:
# PHP FastCGI processes exit after 500 requests by default.
PHP_FCGI_MAX_REQUESTS=10000
export PHP_FCGI_MAX_REQUESTS

# Replace with the path to your FastCGI-enabled PHP executable
exec /usr/bin/php-cgi
SH
write_file("$dir/fcgi-bin/foo.pl", <<'PL', 0755);
#!/usr/bin/perl
use CGI::Fast;
while (my $q = CGI::Fast->new) {
    print("Content-Type: text/plain\n\n");
    foreach $var (sort(keys(%ENV))) {
        $val = $ENV{$var};
        $val =~ s|\n|\\n|g;
        $val =~ s|"|\\"|g;
        print "${var}=\"${val}\"\n";
    }
}
PL
# A FastCGI program that dies mid-answer (FCGI, under CGI::Fast).
write_file("$dir/fcgi-bin/dies.pl", <<'PL', 0755);
#!/usr/bin/perl
use FCGI;
use POSIX ();
my %env;
$| = 1;
my $req = FCGI::Request(\*STDIN, \*STDOUT, \*STDERR, \%env, 0);
while ($req->Accept() >= 0) {
    my $q = $env{QUERY_STRING};
    POSIX::_exit(3) if $q eq 'before';
    print STDERR "dies.pl: a line on stderr\n" if $q eq 'stderr';
    # ?marker=PATH: the same death as ?after, once PATH is made and 2 s
    # have passed (the test stops httpd's children meanwhile, below)
    my ($marker) = $q =~ /\Amarker=([\w\/.-]+)\z/;
    if ($marker) {
        open my $fh, '>', $marker or POSIX::_exit(4);
        close $fh;
        sleep 2;
    }
    print "Content-Type: text/plain\r\n\r\n", 'x' x ($q eq 'after' || $marker ? 5000 : 2);
    if ($q eq 'after' || $marker) { $req->Flush; POSIX::_exit(3) }
}
PL

# ---- the documentation's configuration, unedited but for the paths
my $example = <<'CONF';
# FcgidMaxRequestsPerProcess should be <= PHP_FCGI_MAX_REQUESTS
# The example PHP wrapper script overrides the default PHP setting.
FcgidMaxRequestsPerProcess 10000

# Uncomment the following line if cgi.fix_pathinfo is set to 1 in
# php.ini:
# FcgidFixPathinfo 1

Alias /phpapp/ /usr/local/phpapp/
<Location /phpapp/>
AddHandler fcgid-script .php
Options +ExecCGI
FcgidWrapper /usr/local/bin/php-wrapper .php

# Customize the next two directives for your requirements.
Order allow,deny
Allow from all
</Location>

<Directory /usr/local/apache/fcgi-bin/>
SetHandler fcgid-script
Options +ExecCGI
# Customize the next two directives for your requirements.
Order allow,deny
Allow from all
</Directory>
CONF
$example =~ s{/usr/local/phpapp/}{$dir/phpapp/}g;
$example =~ s{/usr/local/bin/php-wrapper}{$dir/php-wrapper}g;
$example =~ s{/usr/local/apache/fcgi-bin/}{$dir/fcgi-bin/}g;

my $extra = <<"CONF";
LoadModule alias_module @{[libexec()]}/mod_alias.so
LoadModule mime_module @{[libexec()]}/mod_mime.so
LoadModule authz_host_module @{[libexec()]}/mod_authz_host.so
LoadModule access_compat_module @{[libexec()]}/mod_access_compat.so
TypesConfig /etc/mime.types
Alias /fcgi-bin/ $dir/fcgi-bin/
FcgidInitialEnv FCGID_TEST_ENV from-initial-env
FcgidPassHeader Authorization
# a wrapper of the server's, beside the example's <Location>'s own
FcgidWrapper $dir/php-wrapper .phtml
<Location /phpapp/>
    AddHandler fcgid-script .phtml
</Location>
FcgidIOTimeout 30
FcgidIdleScanInterval 60
FcgidIPCDir $dir/ipc
# command lines with arguments, as mod_fcgid splits them: two pools
Alias /phpargs/ $dir/phpapp/
Alias /phpargs2/ $dir/phpapp/
<Location /phpargs/>
    AddHandler fcgid-script .php
    Options +ExecCGI
    FcgidWrapper "/usr/bin/php-cgi -d memory_limit=77M -d 'highlight.comment=#FF8000 x'" .php
</Location>
<Location /phpargs2/>
    AddHandler fcgid-script .php
    Options +ExecCGI
    FcgidWrapper "/usr/bin/php-cgi -d memory_limit=78M" .php
</Location>
# mod_fcgid's lines in a scope that also has (as inherited from the
# server) CGIplusEngine php: the request is fcgid-script's, its file needs
# no execute bit, as under mod_fcgid
Alias /phpinh/ $dir/phpapp/
<Location /phpinh/>
    CGIplusEngine php
    AddHandler fcgid-script .php
    Options +ExecCGI
    FcgidWrapper /usr/bin/php-cgi .php
</Location>
<Location /status>
    SetHandler cgiplus-status
</Location>
$example
CONF
my $conf = "$dir/httpd.conf";
write_file($conf, private_conf($dir, $port, [], $extra), 0644);

my ($rc, $out) = private_check($conf);
ok t_cmp($rc, 0, "mod_fcgid's PHP and Perl examples: httpd -t accepts them");
ok t_cmp(private_start($conf, $port), 1, 'and httpd starts on them');

my ($code, $h, $body) = curl("$base/phpapp/phpinfo.php");
ok t_cmp($code, 200, 'phpinfo.php through FcgidWrapper php-wrapper .php');
ok t_cmp($body, qr{Server API </td><td class="v">CGI/FastCGI }, 'php-cgi, as a FastCGI application');
ok t_cmp($body, qr{PHP_FCGI_MAX_REQUESTS </td><td class="v">10000 }, "the wrapper's PHP_FCGI_MAX_REQUESTS");
($code, undef, my $p1) = curl('-H', 'Authorization: Basic eDp5', "$base/phpapp/pid.php");
(undef, undef, my $p2) = curl("$base/phpapp/pid.php");
my %p1 = $p1 =~ /^(\w+)=(.*)$/mg;
my ($pid1, $env, $auth, $children) = @p1{qw(pid env auth children)};
ok t_cmp($code, 200, 'another .php file of the scope');
ok t_cmp(($p2 =~ /^pid=(\d+)/)[0], $pid1, 'one persistent php-cgi process serves both requests');
ok t_cmp($env, 'from-initial-env', 'FcgidInitialEnv reaches the application');
ok t_cmp($auth, 'Basic eDp5', 'FcgidPassHeader Authorization: passed as HTTP_AUTHORIZATION');
($code, undef, $body) = curl("$base/phpapp/page.phtml");
ok t_cmp("$code $body", "200 phtml by cgi-fcgi\n",
         "the server's FcgidWrapper .phtml holds inside the <Location> with its own (as mod_fcgid merges them)");
# FcgidWrapper with arguments: php-cgi gets them (-d), each command line
# its own persistent pool
($code, undef, $body) = curl("$base/phpargs/ini.php");
my ($ini1, $ipid1) = $body =~ /^(.*)\|(\d+)$/m;
ok t_cmp("$code $ini1", '200 77M|#FF8000 x', "FcgidWrapper \"php-cgi -d ... -d '... x'\": the arguments reach php-cgi, quoted words whole");
(undef, undef, $body) = curl("$base/phpargs2/ini.php");
my ($ini2, $ipid2) = $body =~ /^(.*)\|(\d+)$/m;
ok t_cmp($ini2, '78M|#FF8000', 'another command line of the same program: its own arguments');
(undef, undef, $body) = curl("$base/phpargs/ini.php");
ok t_cmp(($body =~ /\|(\d+)$/m)[0], $ipid1, 'the first command line\'s pool is persistent');
ok t_cmp($ipid2 != $ipid1, 1, 'and the second runs in another process');
($code, undef, $body) = curl("$base/phpinh/pid.php");
ok t_cmp("$code " . (($body =~ /^(env=.*)$/m)[0] // $body), '200 env=from-initial-env',
         'an fcgid-script .php file without an execute bit where CGIplusEngine php is inherited: its FcgidWrapper runs it');
($code, $h, $body) = curl("$base/fcgi-bin/foo.pl");
ok t_cmp($code, 200, "the Perl example (SetHandler fcgid-script): CGI::Fast answers");
ok t_cmp($body, qr{^SCRIPT_NAME="/fcgi-bin/foo\.pl"$}m, 'with its environment');
ok t_cmp($children, '0', 'PHP_FCGI_CHILDREN=0, as mod_fcgid needs it');
ok t_cmp($body, qr{^REQUEST_METHOD="GET"$}m, "CGI::Fast's %ENV is the request's");
# The client's hop-by-hop headers are not passed, and HTTP_CONNECTION is
# "close", as mod_fcgid 2.3.9 has them.
(undef, undef, $body) = curl('-H', 'TE: trailers', '-H', 'Upgrade: h2c', '-H', 'Keep-Alive: 5',
                             '-H', 'Trailer: X-T', "$base/fcgi-bin/foo.pl");
ok t_cmp(join(' ', $body =~ /^(HTTP_(?:TE|UPGRADE|KEEP_ALIVE|TRAILER|CONNECTION)=.*)$/mg),
         'HTTP_CONNECTION="close"', 'no HTTP_TE, HTTP_UPGRADE, HTTP_KEEP_ALIVE, HTTP_TRAILER; HTTP_CONNECTION "close"');

# Its stderr goes to the error log at warn, as mod_fcgid logs it.
{
    my $mark = -s "$dir/error_log";
    ($code) = curl("$base/fcgi-bin/dies.pl?stderr");
    my $line = '';
    for (1 .. 100) {
        open my $fh, '<', "$dir/error_log" or last;
        seek $fh, $mark, 0;
        local $/;
        ($line) = (<$fh> // '') =~ /^(.*dies\.pl: a line on stderr.*)$/m;
        last if $line;
        select undef, undef, undef, 0.2;
    }
    ok t_cmp(($line // '') =~ /\[cgiplus:(\w+)\].*CGIPLUS1050/ ? "$code $1" : "$code none: " . ($line // ''),
             '200 warn', "an fcgid-script program's stderr: logged at warn, as by mod_fcgid");
}

# A program that dies before its header: 500, as mod_fcgid answers (a
# native FastCGI scope says 502). After a served request, so no crash-loop
# backoff comes between.
($code) = curl("$base/fcgi-bin/dies.pl?ok");
my ($c2) = curl("$base/fcgi-bin/dies.pl?before");
ok t_cmp("$code $c2", '200 500', 'an fcgid-script program that dies before its header: 500, as under mod_fcgid');
# One that dies after its header and a short body: when httpd had not sent
# the header yet, 500 (mod_fcgid's answer, as it holds such a short one);
# when it had, a response the client can tell is cut short (curl 18 or 56),
# never a complete-looking one. Which of the two comes depends on when the
# death is seen (on a fast machine nearly always after the header went), so
# each try must be one of the two.
{
    my %seen;
    for (1 .. 20) {
        curl("$base/fcgi-bin/dies.pl?ok");
        my $out = `curl -s -o /dev/null -w '%{http_code}' --max-time 20 $base/fcgi-bin/dies.pl?after`;
        my $rc = $? >> 8;
        my $kind = $out eq '500' && $rc == 0 ? 'early 500'
                 : $out eq '200' && ($rc == 18 || $rc == 56) ? 'late, cut' : "$out curl=$rc";
        $seen{$kind}++;
    }
    ok t_cmp(join(', ', grep { !/^(early 500|late, cut)$/ } sort keys %seen), '',
             'a death after a short answer: 500 while the header was not sent, else a cut response');
}
# The early case made certain: httpd's children are stopped (SIGSTOP) while
# the program writes its short answer and dies, so the child that holds the
# request finds the answer and the death together when it runs again. The
# log says the program died after its answer (status 3), not before it.
{
    my $marks = "$dir/marks";
    mkdir $marks;
    chmod 01777, $marks; # the program runs as httpd's User
    my $marker = "$marks/dies";
    unlink $marker;
    curl("$base/fcgi-bin/dies.pl?ok");
    my $parent = pid_in("$dir/httpd.pid");
    my ($runner) = map { /(\d+)/ } `pgrep -P $parent -x cgiplus-runner`;
    my @kids = grep { $_ != ($runner // 0) } map { /(\d+)/ } `pgrep -P $parent`;
    my $logged = length private_log($dir);
    my $pid = open(my $curl, '-|', 'curl', '-s', '-o', '/dev/null', '-w', '%{http_code} curl=%{exitcode}',
                   '--max-time', '30', "$base/fcgi-bin/dies.pl?marker=$marker")
        // die "curl: $!";
    sleep 0.05 until -e $marker || waitpid($pid, POSIX::WNOHANG()) > 0;
    kill 'STOP', @kids;
    sleep 3; # the program answers and dies 2 s after its sign
    kill 'CONT', @kids;
    my $code = do { local $/; <$curl> } // '';
    close $curl;
    my $after = substr(private_log($dir), $logged) =~
        /dies\.pl \(worker pid \d+\) ended with outcome crashed: exited with status 3 after its response started/;
    ok t_cmp(!@kids ? "no child of httpd $parent found" : !-e $marker ? 'the program made no sign'
             : !$after ? 'no log line of a death after the answer' : $code, '500 curl=0',
             'the early case (the death seen with the answer, before the header went): 500');
}

# mod_fcgid's default FcgidMaxRequestLen (131072): a larger body, 413.
open my $big, '>', "$dir/big" or die;
print $big 'x' x 200_000;
close $big;
($code) = curl('--data-binary', "\@$dir/big", "$base/phpapp/pid.php");
ok t_cmp($code, 413, "a body over mod_fcgid's default FcgidMaxRequestLen: 413");
($code) = curl('-H', 'Transfer-Encoding: chunked', '--data-binary', "\@$dir/big", "$base/phpapp/pid.php");
ok t_cmp($code, 413, 'a chunked one too, counted as it arrives');
($code) = curl('--data-binary', 'small', "$base/phpapp/pid.php");
ok t_cmp($code, 200, 'a small body goes through');

# The Fcgid* numbers are the pools' settings; the pool runs the wrapper.
my $st = eval { JSON::PP::decode_json((curl("$base/status?json"))[2]) } // {};
my ($pool) = grep { ($_->{script} // '') eq "$dir/php-wrapper" } @{ $st->{pools} // [] };
ok t_cmp($pool ? "$pool->{mode} $pool->{settings}{max_requests}" : 'no pool', 'fastcgi 10000',
         'one pool runs the wrapper, mode fastcgi, FcgidMaxRequestsPerProcess as max_requests');
ok t_cmp($pool ? $pool->{settings}{timeout_noprogress} : -1, 30000, 'FcgidIOTimeout as the no-progress timeout (ms)');
my @argpools = sort map { join ' ', @{ $_->{settings}{args} // [] } }
    grep { ($_->{script} // '') eq '/usr/bin/php-cgi' && @{ $_->{settings}{args} // [] } } @{ $st->{pools} // [] };
ok t_cmp("@argpools", "-d memory_limit=77M -d highlight.comment=#FF8000 x -d memory_limit=78M",
         'the status page shows the two pools of /usr/bin/php-cgi with their arguments');
ok t_cmp($pool ? $pool->{counters}{errors}{too_large} : -1, 2,
         'both bodies over FcgidMaxRequestLen are counted as too_large, as LimitRequestBody\'s are');
private_stop("$dir/httpd.pid");

# ---- every value is checked; what has no counterpart is refused, saying why
sub check {
    my ($body) = @_;
    write_file("$dir/check.conf", private_conf($dir, $port, [], $body), 0644);
    return private_check("$dir/check.conf");
}
for my $c (['FcgidMaxRequestsPerProcess lots', qr/FcgidMaxRequestsPerProcess takes a whole number, at least -1 \(more than \d+ counts as \d+\), not 'lots'/],
           ['FcgidMaxProcessesPerClass 0', qr/FcgidMaxProcessesPerClass takes a whole number, at least 1 \(more than 4096 counts as 4096\), not '0'/],
           ['FcgidIOTimeout 0', qr/FcgidIOTimeout takes a whole number from 1 to \d+ \(seconds\), not '0'/],
           ['FcgidWrapper /no/such/wrapper .php', qr{FcgidWrapper: '/no/such/wrapper' is not an executable file}],
           ['FcgidCmdOptions "/usr/bin/php-cgi -d x=1" MaxProcesses 2', qr{FcgidCmdOptions names a program, not a command line: '/usr/bin/php-cgi -d x=1'}],
           ['FcgidWrapper "/usr/bin/php-cgi ' . ('-d x=1 ' x 600) . '" .php', qr/FcgidWrapper: the command line is longer than 4096 bytes/],
           ['FcgidWrapper "/usr/bin/php-cgi ' . ('-n ' x 33) . '" .php', qr/FcgidWrapper: '.*' has more than 32 arguments/],
           ['FcgidWrapper /usr/bin/php-cgi php', qr/FcgidWrapper: a suffix starts with '\.' \(\.php\), not 'php'/],
           ['FcgidWrapper /usr/bin/php-cgi .php real', qr/FcgidWrapper: the flag is 'virtual', not 'real'/],
           ['FcgidFixPathinfo 2', qr/FcgidFixPathinfo takes 1 .* or 0, not '2'/],
           ['FcgidCmdOptions /usr/bin/php-cgi Bogus 1', qr/FcgidCmdOptions: unknown option 'Bogus'/],
           ['FcgidCmdOptions /usr/bin/php-cgi MaxProcesses', qr/FcgidCmdOptions: MaxProcesses needs a value/],
           ['FcgidSpawnScore many', qr/FcgidSpawnScore takes a whole number, not 'many'/],
           ["<Location /x>\nFcgidAuthorizer /usr/bin/php-cgi\n</Location>",
            qr/FcgidAuthorizer: FastCGI authenticators, authorizers and access checkers are not supported by mod_cgiplus, which runs FastCGI responders only/],
           ['FcgidMaxProcesses 0', qr/FcgidMaxProcesses takes a whole number, at least 1 \(more than 65536 counts as 65536\), not '0'/]) {
    my ($rc, $out) = check($c->[0]);
    ok t_cmp("$rc " . ($out =~ $c->[1] ? 'why' : $out), '1 why', "'$c->[0]': refused, saying why");
}
($rc, $out) = check(join "\n", 'FcgidCmdOptions /usr/bin/php-cgi MaxProcesses 3 InitialEnv A=b IOTimeout 20 ConnectTimeout 3',
                    'FcgidMaxProcesses 300', 'FcgidBusyTimeout 300', 'FcgidProcessLifeTime 0',
                    'FcgidMinProcessesPerClass 0', 'FcgidMaxRequestInMem 65536', 'FcgidOutputBufferSize 0',
                    'FcgidSpawnScoreUpLimit 10', 'FcgidTerminationScore -1', 'FcgidProcessTableFile logs/fcgid_shm',
                    'FcgidConnectTimeout 3', 'FcgidZombieScanInterval 3', 'MaxRequestsPerProcess 500',
                    'DefaultInitEnv OLD_NAME 1', 'FcgidWrapper /usr/bin/php-cgi virtual');
ok t_cmp("$rc " . ($out =~ /Syntax OK/ ? 'ok' : $out), '0 ok', 'the other directives (and old names) are accepted');

# mod_fcgid's process-manager settings and FcgidFixPathinfo are server-wide:
# in a <VirtualHost> it refuses them, in its words; its connect timeout and
# output buffer size it takes there. The same here, and against mod_fcgid.
for my $c (['FcgidFixPathinfo 1', 1], ['FcgidIPCDir /tmp', 1], ['FcgidIdleScanInterval 120', 1],
           ['FcgidSpawnScoreUpLimit 10', 1], ['PHP_Fix_Pathinfo_Enable 1', 1],
           ['FcgidConnectTimeout 3', 0], ['FcgidOutputBufferSize 0', 0]) {
    my ($d) = $c->[0] =~ /^(\S+)/;
    my $vh = "<VirtualHost 127.0.0.1:$port>\n$c->[0]\n</VirtualHost>";
    my $want = $c->[1] ? "1 $d cannot occur within <VirtualHost> section" : '0 ';
    my @got = map {
        my ($rc, $out) = check($_ . $vh);
        "$rc " . ($rc ? ($out =~ /(\S+ cannot occur within <VirtualHost> section)/)[0] // $out : '');
    } ('', "LoadModule fcgid_module @{[libexec()]}/mod_fcgid.so\n");
    ok t_cmp("$got[0] | mod_fcgid: $got[1]", "$want | mod_fcgid: $want",
             "'$c->[0]' in a <VirtualHost>: " . ($c->[1] ? 'refused as mod_fcgid refuses it' : 'accepted, as by mod_fcgid'));
}

# mod_fcgid loaded as well: its directives are its own, httpd starts.
{
    my $both = "LoadModule fcgid_module @{[libexec()]}/mod_fcgid.so\n$extra";
    write_file("$dir/both.conf", private_conf($dir, $port, [], $both), 0644);
    ($rc, $out) = private_check("$dir/both.conf");
    ok t_cmp($rc, 0, 'with mod_fcgid loaded too, the examples still pass httpd -t');
    ($rc, $out) = check("LoadModule fcgid_module @{[libexec()]}/mod_fcgid.so\n"
                        . "<Location /x>\nFcgidAuthorizer /usr/bin/php-cgi\n</Location>");
    ok t_cmp($rc, 0, "and mod_fcgid's own authorizer is not refused (it is mod_fcgid's)");
}
