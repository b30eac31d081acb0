# Every row of README's directive table, tried as an administrator would
# (httpd -t on a private configuration with the freshly built module):
# - each directive is accepted in the contexts its row names (server
#   config, virtual host, directory: <Directory> and <Location>) and
#   refused elsewhere, saying where; in .htaccess (a started httpd,
#   AllowOverride All) it is taken only where its row names .htaccess,
#   else the request is 500 and the error log names the directive;
#   mod_fcgid's refused rows are refused everywhere, saying why;
# - a value past a documented limit (or empty, negative, too big, a wrong
#   unit or word, too many words, a relative path where an absolute is
#   needed) is refused with a sentence naming the directive and saying
#   why; a value at a limit passes;
# - the defaults the rows (and docs/RUNNER.md's) give are the ones the
#   runner uses, as its status page shows them, mod_cgid's
#   `CGIDScriptTimeout 0` (its "not set") and a virtual host's own
#   `Timeout` included.
# A directive added to the table without a sample here fails the first
# check.
use strict;
use warnings FATAL => 'all';
use Apache::Test;
use Apache::TestUtil;
use File::Path qw(make_path remove_tree);
use IO::Socket::INET;
use JSON::PP;
use lib 't/htdocs/pool/lib';
use PoolTest ();
use lib 't/lib';
use FreePort qw(free_port);
use PrivateHttpd qw(private_conf private_start private_dir private_get resp_code resp_body
                    private_log);

my $vars = Apache::Test::config()->{vars};
my $top = $vars->{top_dir};
my $dir = "$vars->{t_logs}/directives";
remove_tree($dir);
make_path("$dir/st");
sub configtest { PoolTest::configtest($dir, @_) }

# A key file as CGIplusRunnerKeyFile wants it: 64 hex digits, mode 0600.
my $key = "$dir/runner.key";
open my $kf, '>', $key or die "$key: $!";
print $kf join('', map { sprintf '%02x', int rand 256 } 1 .. 32), "\n";
close $kf;
chmod 0600, $key;

# ---- the table ----
my $readme = do { open my $fh, '<', "$top/README.md" or die; local $/; <$fh> };
my ($table) = $readme =~ /^### Directives\n(.*?)^## /ms or die "no directive table\n";
my %ctx; # directive => { S => 1, V => 1, D => 1, H => 1 }
my %word = ('server config' => 'S', 'virtual host' => 'V', 'directory' => 'D');
sub contexts {
    my ($text) = @_;
    my %c = map { $word{$_} ? ($word{$_} => 1) : () } map { s/^\s+|\s+$//gr } split /,/, $text;
    $c{H} = 1 if $text =~ /\.htaccess/;
    return \%c;
}
# mod_fcgid's old names: as their new ones
my %old = (FCGIWrapper => 'FcgidWrapper', DefaultInitEnv => 'FcgidInitialEnv',
           MaxRequestsPerProcess => 'FcgidMaxRequestsPerProcess', IPCCommTimeout => 'FcgidIOTimeout',
           BusyTimeout => 'FcgidBusyTimeout', MaxRequestLen => 'FcgidMaxRequestLen',
           PassHeader => 'FcgidPassHeader', PHP_Fix_Pathinfo_Enable => 'FcgidFixPathinfo');
my %refused; # mod_fcgid's that mod_cgiplus refuses wherever they are
for my $row (grep { /^\| `/ } split /\n/, $table) {
    my (undef, $first, $where) = split /(?<!\\)\|/, $row;
    next if $first =~ /LoadModule/ || $first =~ /old names/;
    my @names = $first =~ /`([A-Z]\w+)/g;
    if ($first =~ /\(([^()]*server config[^()]*)\)/) { # names with contexts of their own
        my ($own, $c) = ($`, contexts($1));
        $ctx{$_} = $c for $own =~ /`(\w+)`/g;
        @names = grep { !$ctx{$_} } @names;
    }
    my $c = contexts($where);
    for (@names) { $ctx{$_} = $c; $refused{$_} = 1 if $row =~ /\| Refused/ }
}
$ctx{$_} = $ctx{ $old{$_} } for keys %old;

# A valid line of each (and what it needs at the top first).
my $sock = "$dir/ext.sock";
my %sample = (
    CGIplusRunnerSocket => ["CGIplusRunnerKeyFile $key", "CGIplusRunnerSocket $sock"],
    CGIplusRunnerKeyFile => ["CGIplusRunnerSocket $sock", "CGIplusRunnerKeyFile $key"],
    CGIplusRunnerUser => ["CGIplusRunnerSocket $sock\nCGIplusRunnerKeyFile $key", 'CGIplusRunnerUser daemon'],
    CGIplusRunnerPath => "CGIplusRunnerPath $top/runner/cgiplus-runner",
    CGIplusMaxWorkers => 'CGIplusMaxWorkers 5', CGIplusMode => 'CGIplusMode cgi',
    CGIplusFastCGIConnection => 'CGIplusFastCGIConnection per-request',
    CGIplusEngine => 'CGIplusEngine /usr/bin/perl', CGIplusEngineMaxRSS => 'CGIplusEngineMaxRSS 100M',
    CGIplusDirect => 'CGIplusDirect off', CGIplusCompat => 'CGIplusCompat on',
    CGIplusBodyBuffer => 'CGIplusBodyBuffer 1M', CGIplusBodyMinRate => 'CGIplusBodyMinRate 100',
    CGIplusResponseBuffer => 'CGIplusResponseBuffer 1M',
    CGIplusResponseSpoolMax => 'CGIplusResponseSpoolMax 1G',
    CGIplusResponseSpoolDir => "CGIplusResponseSpoolDir $dir/rsp",
    CGIplusMaxHeaderSize => 'CGIplusMaxHeaderSize 2048',
    CGIplusScriptLog => 'CGIplusScriptLog logs/script_log',
    CGIplusScriptLogLength => 'CGIplusScriptLogLength 1000',
    CGIplusScriptLogBuffer => 'CGIplusScriptLogBuffer 100',
    CGIplusStatusShowQuery => 'CGIplusStatusShowQuery on',
    ScriptLog => 'ScriptLog logs/script_log', ScriptLogLength => 'ScriptLogLength 1000',
    ScriptLogBuffer => 'ScriptLogBuffer 100', ScriptSock => 'ScriptSock logs/cgisock',
    CGIScriptTimeout => 'CGIScriptTimeout 30', CGIDScriptTimeout => 'CGIDScriptTimeout 30',
    FcgidWrapper => 'FcgidWrapper /bin/cat .php', FcgidInitialEnv => 'FcgidInitialEnv A b',
    FcgidMaxRequestsPerProcess => 'FcgidMaxRequestsPerProcess 100',
    FcgidMaxProcessesPerClass => 'FcgidMaxProcessesPerClass 10',
    FcgidMinProcessesPerClass => 'FcgidMinProcessesPerClass 1',
    FcgidIdleTimeout => 'FcgidIdleTimeout 100', FcgidProcessLifeTime => 'FcgidProcessLifeTime 100',
    FcgidIOTimeout => 'FcgidIOTimeout 30', FcgidBusyTimeout => 'FcgidBusyTimeout 100',
    FcgidMaxRequestLen => 'FcgidMaxRequestLen 1000000',
    FcgidMaxRequestInMem => 'FcgidMaxRequestInMem 100000',
    FcgidPassHeader => 'FcgidPassHeader Authorization', FcgidFixPathinfo => 'FcgidFixPathinfo 1',
    FcgidMaxProcesses => 'FcgidMaxProcesses 100',
    FcgidCmdOptions => 'FcgidCmdOptions /bin/cat MaxProcesses 3',
    (map { ("Fcgid$_" => "Fcgid$_ 10") } qw(ConnectTimeout OutputBufferSize BusyScanInterval
        ErrorScanInterval IdleScanInterval ZombieScanInterval SpawnScore SpawnScoreUpLimit
        TerminationScore TimeScore)),
    FcgidIPCDir => "FcgidIPCDir $dir/ipc", FcgidProcessTableFile => "FcgidProcessTableFile $dir/shm",
    (map { ("Fcgid$_" => "Fcgid$_ /bin/cat") } qw(Authenticator Authorizer AccessChecker)),
    (map { ("Fcgid${_}Authoritative" => "Fcgid${_}Authoritative on") }
        qw(Authenticator Authorizer AccessChecker)),
    CGIplusOffloadRoot => "CGIplusOffloadRoot $dir/st",
    CGIplusStaticCacheEntries => 'CGIplusStaticCacheEntries 10',
    CGIplusStaticCacheBytes => 'CGIplusStaticCacheBytes 1M',
    CGIplusStaticMaxMemFile => 'CGIplusStaticMaxMemFile 1K',
    CGIplusStaticRevalidate => 'CGIplusStaticRevalidate 10',
    CGIplusStaticCacheEviction => 'CGIplusStaticCacheEviction lru',
    CGIplusStatic => "CGIplusStatic /st/ $dir/st",
    CGIplusMinIdle => 'CGIplusMinIdle 1', CGIplusMaxRequests => 'CGIplusMaxRequests 10',
    CGIplusMaxAge => 'CGIplusMaxAge 1h', CGIplusIdleTimeout => 'CGIplusIdleTimeout 1m',
    CGIplusSpawnRate => 'CGIplusSpawnRate 5', CGIplusQueueDepth => 'CGIplusQueueDepth 5',
    CGIplusQueueWait => 'CGIplusQueueWait 5s', CGIplusTimeoutOutput => 'CGIplusTimeoutOutput 5s',
    CGIplusTimeoutNoProgress => 'CGIplusTimeoutNoProgress 5s',
    CGIplusRLimit => 'CGIplusRLimit cpu 10', CGIplusSetEnv => 'CGIplusSetEnv A b',
    CGIplusUser => 'CGIplusUser daemon', CGIplusMaxWorkersTotal => 'CGIplusMaxWorkersTotal 100',
    CGIplusSpawnBackoff => 'CGIplusSpawnBackoff 1s 10s', CGIplusKillGrace => 'CGIplusKillGrace 1s',
    CGIplusSpoolDir => "CGIplusSpoolDir $dir/spool", CGIplusSpoolMax => 'CGIplusSpoolMax 1M',
    CGIplusWebSocket => 'CGIplusWebSocket off', CGIplusWebSocketMaxMessage => 'CGIplusWebSocketMaxMessage 1K',
    CGIplusWebSocketSendQueue => 'CGIplusWebSocketSendQueue 1M',
    CGIplusWebSocketOverflow => 'CGIplusWebSocketOverflow drop',
    CGIplusWebSocketPing => 'CGIplusWebSocketPing 10s',
    CGIplusWebSocketIdleTimeout => 'CGIplusWebSocketIdleTimeout 10s',
    CGIplusWebSocketMessageTimeout => 'CGIplusWebSocketMessageTimeout 10s',
    CGIplusWebSocketMaxRate => 'CGIplusWebSocketMaxRate 10',
    CGIplusWebSocketMaxConnections => 'CGIplusWebSocketMaxConnections 10',
    CGIplusWebSocketMaxPerAddress => 'CGIplusWebSocketMaxPerAddress 10',
    CGIplusWebSocketDrain => 'CGIplusWebSocketDrain 10s',
    CGIplusWebSocketMemory => 'CGIplusWebSocketMemory 10M',
    CGIplusCalloutTimeout => 'CGIplusCalloutTimeout 1s',
);
$sample{$_} = $sample{ $old{$_} } =~ s/^\w+/$_/r for keys %old;

# ---- the refusals and the limits ----
# [line, what the refusal says]: each names the directive and says why
# (CGIplusStatic's options: t/25_static_config.t).
my @bad = (
    ['CGIplusMaxWorkers 0', qr/CGIplusMaxWorkers takes a whole number from 1 to 4096, not '0'/],
    ['CGIplusMaxWorkers 4097', qr/CGIplusMaxWorkers takes a whole number from 1 to 4096, not '4097'/],
    ['CGIplusMaxWorkers -1', qr/CGIplusMaxWorkers takes a whole number from 1 to 4096, not '-1'/],
    ['CGIplusMaxWorkers 5 6', qr/CGIplusMaxWorkers takes one argument/],
    ['CGIplusMaxWorkers ""', qr/CGIplusMaxWorkers takes one argument/],
    ['CGIplusMinIdle 4097', qr/CGIplusMinIdle takes a whole number from 0 to 4096/],
    ['CGIplusMaxRequests 4294967296', qr/CGIplusMaxRequests takes a whole number from 0 to 4294967295/],
    ['CGIplusMaxWorkersTotal 0', qr/CGIplusMaxWorkersTotal takes a whole number from 1 to 65536, not '0'/],
    ['CGIplusMaxWorkersTotal 65537', qr/CGIplusMaxWorkersTotal takes a whole number from 1 to 65536/],
    ['CGIplusSpawnRate 10001', qr/CGIplusSpawnRate takes a whole number from 0 to 10000/],
    ['CGIplusQueueDepth 100001', qr/CGIplusQueueDepth takes a whole number from 0 to 100000/],
    ['CGIplusRLimit nofile 2000000', qr/CGIplusRLimit nofile takes a whole number from 0 to 1048576, not '2000000'/],
    ['CGIplusRLimit nproc 4194305', qr/CGIplusRLimit nproc takes a whole number from 0 to 4194304/],
    ['CGIplusRLimit cpu 4294967296', qr/CGIplusRLimit cpu takes a whole number from 0 to 4294967295/],
    ['CGIplusRLimit as 1T', qr/CGIplusRLimit as takes a whole number of bytes \(K, M or G allowed\), not '1T'/],
    ['CGIplusRLimit mem 5', qr/CGIplusRLimit takes cpu \(seconds\), as \(bytes of address space\), nofile or nproc, then a number; not 'mem'/],
    ['CGIplusRLimit cpu 5 6', qr/CGIplusRLimit takes two arguments/],
    ['CGIplusSpoolMax 0', qr/CGIplusSpoolMax takes a number of bytes of at least 1 \(K, M or G allowed\)/],
    # too big is too big, not malformed (it said "takes a whole number of bytes")
    ['CGIplusSpoolMax 99999999999999999999', qr/CGIplusSpoolMax takes at most 4611686018427387904 bytes, not '99999999999999999999'/],
    ['CGIplusMaxAge 3 days', qr/CGIplusMaxAge takes one argument/],
    ['CGIplusMaxAge 3d', qr/CGIplusMaxAge takes a duration: a number of seconds \(fractions allowed, or with a unit: 1500ms, 2s, 1.5m, 1h\) or 'none', not '3d'/],
    ['CGIplusMaxAge -1', qr/CGIplusMaxAge takes a duration: .* not '-1'/],
    ['CGIplusIdleTimeout 9999999999s', qr/CGIplusIdleTimeout: '9999999999s' is too long a time/],
    # 13 digits are too long a time, not a malformed duration
    ['CGIplusIdleTimeout 9999999999999', qr/CGIplusIdleTimeout: '9999999999999' is too long a time/],
    ['CGIplusKillGrace none', qr/CGIplusKillGrace takes a duration, not 'none'/],
    ['CGIplusKillGrace 0', qr/CGIplusKillGrace takes a duration, not 'none'/],
    ['CGIplusCalloutTimeout none', qr/CGIplusCalloutTimeout takes a duration, not 'none'/],
    ['CGIplusMode fast', qr/CGIplusMode takes 'cgiplus' \(persistent workers\), 'cgi' \(one process per request\) or 'fastcgi' \(FastCGI applications as persistent workers\), not 'fast'/],
    ['CGIplusMode websocket', qr/CGIplusMode takes 'cgiplus' .* not 'websocket'/],
    ['CGIplusFastCGIConnection per_request', qr/CGIplusFastCGIConnection takes 'keep' .* not 'per_request'/],
    ['CGIplusDirect maybe', qr/CGIplusDirect must be On or Off/],
    # httpd's FLAG ignored the words after the first: these passed
    ['CGIplusDirect on off', qr/CGIplusDirect takes one argument/],
    ['CGIplusCompat off on', qr/CGIplusCompat takes one argument/],
    ['CGIplusWebSocket on please', qr/CGIplusWebSocket takes one argument/],
    ['CGIplusStatusShowQuery yes', qr/CGIplusStatusShowQuery must be On or Off/],
    ["<VirtualHost 127.0.0.1:1>\nCGIplusCalloutTimeout 2s\n</VirtualHost>", qr/CGIplusCalloutTimeout cannot occur within <VirtualHost> section/],
    ["<VirtualHost 127.0.0.1:1>\nScriptSock logs/cgisock\n</VirtualHost>", qr/ScriptSock cannot occur within <VirtualHost> section/],
    ['CGIplusSpawnBackoff 2s 1s', qr/CGIplusSpawnBackoff takes a first delay and an optional longest delay, not 'none', the longest no shorter than the first/],
    ['CGIplusSpawnBackoff 0', qr/CGIplusSpawnBackoff takes a first delay .* not 'none'/],
    ['CGIplusSpawnBackoff 1s 2s 3s', qr/CGIplusSpawnBackoff takes 1-2 arguments/],
    ['CGIplusEngineMaxRSS 1048575', qr/CGIplusEngineMaxRSS takes a size of at least 1M \(K, M or G allowed\) or 'none', not '1048575'/],
    ['CGIplusEngineMaxRSS 0', qr/CGIplusEngineMaxRSS takes a size of at least 1M .* not '0'/],
    ['CGIplusEngine ruby', qr/CGIplusEngine takes perl, python, php, the absolute path of an engine program, or none; not 'ruby'/],
    ['CGIplusEngine usr/bin/perl', qr/CGIplusEngine takes perl, python, php, the absolute path of an engine program, or none; not 'usr\/bin\/perl'/],
    ["CGIplusEngine $dir", qr/CGIplusEngine \Q$dir\E: '\Q$dir\E' is not an executable file/],
    ['CGIplusBodyBuffer 17M', qr/CGIplusBodyBuffer takes at most 16777216 bytes, not '17M'/],
    ['CGIplusBodyBuffer -1', qr/CGIplusBodyBuffer takes a whole number of bytes \(K, M or G allowed\), not '-1'/],
    ['CGIplusBodyMinRate 2G', qr/CGIplusBodyMinRate takes at most 1073741824 bytes a second, not '2G'/],
    ['CGIplusResponseBuffer 17M', qr/CGIplusResponseBuffer takes at most 16777216 bytes \(16M\), not '17M'/],
    ['CGIplusResponseSpoolMax 1025G', qr/CGIplusResponseSpoolMax takes at most 1099511627776 bytes \(1T\), not '1025G'/],
    ['CGIplusResponseSpoolMax none', qr/CGIplusResponseSpoolMax takes a whole number of bytes \(K, M or G allowed\), not 'none'/],
    ['CGIplusMaxHeaderSize 1023', qr/CGIplusMaxHeaderSize takes a number of bytes from 1024 to 1048576, not '1023'/],
    ['CGIplusMaxHeaderSize 1048577', qr/CGIplusMaxHeaderSize takes a number of bytes from 1024 to 1048576, not '1048577'/],
    ['CGIplusScriptLogLength -1', qr/CGIplusScriptLogLength takes a number of bytes from 0 to 9223372036854775807, not '-1'/],
    ['CGIplusScriptLogBuffer 1048577', qr/CGIplusScriptLogBuffer takes a number of bytes from 0 to 1048576, not '1048577'/],
    ['CGIplusSetEnv 1A b', qr/CGIplusSetEnv: '1A' is not a variable name/],
    ['CGIplusSetEnv A b c', qr/CGIplusSetEnv takes two arguments/],
    [join('', map { "CGIplusSetEnv V$_ x\n" } 1 .. 65), qr/CGIplusSetEnv: at most 64 variables per section/],
    ['CGIplusSetEnv A ' . ('x' x 4095), qr/CGIplusSetEnv: NAME=value must fit 4096 bytes on one line/],
    ['CGIplusUser root', qr/CGIplusUser: scripts never run as root/],
    ['CGIplusUser daemon #0', qr/CGIplusUser: scripts never run as root/],
    ['CGIplusUser nosuchuser', qr/CGIplusUser: no user 'nosuchuser'/],
    ['CGIplusUser daemon daemon daemon', qr/CGIplusUser takes 1-2 arguments/],
    # uid_t's -1 and a typo after the digits passed, the first for the runner to refuse
    ['CGIplusUser #65534 #4294967295', qr/CGIplusUser takes a group name or #GID \(0 to 2147483647\) after the user, not '#4294967295'/],
    ['CGIplusUser #12abc #12', qr/CGIplusUser takes a user name or #UID \(0 to 2147483647\), not '#12abc'/],
    ['CGIplusRunnerUser #abc', qr/CGIplusRunnerUser takes a user name or #UID \(a number\), not '#abc'/],
    ['CGIplusRunnerUser nosuchuser', qr/CGIplusRunnerUser: there is no user named 'nosuchuser'/],
    ["CGIplusRunnerSocket $dir/" . ('s' x 100) . '.sock', qr/CGIplusRunnerSocket: the path '.*' is 1\d\d bytes long, but a UNIX socket path must be shorter than 108 bytes/],
    ["CGIplusRunnerPath $dir", qr/CGIPLUS1001: mod_cgiplus cannot start the runner: '\Q$dir\E' is not an executable file/],
    ['CGIplusWebSocketMaxMessage 124', qr/CGIplusWebSocketMaxMessage takes a number of bytes of at least 125/],
    ['CGIplusWebSocketMaxMessage 16777217', qr/CGIplusWebSocketMaxMessage takes at most 16777216 bytes \(16M\)/],
    ['CGIplusWebSocketSendQueue 1023', qr/CGIplusWebSocketSendQueue takes a number of bytes of at least 1024/],
    ['CGIplusWebSocketSendQueue 65M', qr/CGIplusWebSocketSendQueue takes at most 67108864 bytes \(64M\)/],
    ['CGIplusWebSocketOverflow 1009', qr/CGIplusWebSocketOverflow takes '1008' .* not '1009'/],
    ['CGIplusWebSocketMaxConnections 0', qr/CGIplusWebSocketMaxConnections takes a whole number from 1 to 100000000, or 'none', not '0'/],
    ['CGIplusWebSocketMaxPerAddress 100000001', qr/CGIplusWebSocketMaxPerAddress takes a whole number from 1 to 100000000, or 'none'/],
    ['CGIplusWebSocketMaxRate 0', qr/CGIplusWebSocketMaxRate takes a whole number from 1 to 100000000, or 'none', not '0'/],
    ['CGIplusWebSocketDrain 9ms', qr/CGIplusWebSocketDrain takes a duration of at least 10ms, or 'none', not '9ms'/],
    ['CGIplusWebSocketPing 0', qr/CGIplusWebSocketPing takes a duration of at least 10ms, or 'none', not '0'/],
    ['CGIplusWebSocketIdleTimeout 5ms', qr/CGIplusWebSocketIdleTimeout takes a duration of at least 10ms/],
    ['CGIplusWebSocketMessageTimeout 0', qr/CGIplusWebSocketMessageTimeout takes a duration of at least 10ms/],
    ['CGIplusWebSocketMemory 1048575', qr/CGIplusWebSocketMemory takes a number of bytes of at least 1048576/],
    ['CGIplusWebSocketMemory 1025G', qr/CGIplusWebSocketMemory takes at most 1099511627776 bytes \(1T\)/],
    ['CGIplusOffloadRoot /nonexistent', qr/CGIplusOffloadRoot: '\/nonexistent' is not an existing directory/],
    ['CGIplusStaticCacheEntries 1048577', qr/CGIplusStaticCacheEntries takes a whole number from 0 to 1048576/],
    ['CGIplusStaticCacheBytes 1025G', qr/CGIplusStaticCacheBytes takes a size in bytes, optionally with K, M or G, from 0 to 1099511627776 bytes, not '1025G'/],
    ['CGIplusStaticCacheBytes 0', qr/CGIPLUS1500: CGIplusStaticMaxMemFile \(65536 bytes\) is larger than CGIplusStaticCacheBytes \(0 bytes\)/],
    # (and the defaults of both: 64K and 16M)
    ['CGIplusStaticMaxMemFile 17M', qr/CGIPLUS1500: CGIplusStaticMaxMemFile \(17825792 bytes\) is larger than CGIplusStaticCacheBytes \(16777216 bytes\)/],
    ["CGIplusStaticCacheBytes 2G\nCGIplusStaticMaxMemFile 1025M", qr/CGIplusStaticMaxMemFile takes .*1073741824/],
    ['CGIplusStaticRevalidate 86400001', qr/CGIplusStaticRevalidate takes a whole number from 0 to 86400000/],
    ['CGIDScriptTimeout 5m', qr/CGIDScriptTimeout takes a time in seconds \(or with a unit: 500ms, 2mi, 1h\), not '5m'/],
    ['CGIDScriptTimeout -1', qr/CGIDScriptTimeout takes a time in seconds .* not '-1'/],
    ['CGIScriptTimeout 1.5', qr/CGIScriptTimeout takes a time in seconds .* not '1.5'/],
    ['CGIDScriptTimeout 999999999999', qr/CGIDScriptTimeout: '999999999999' is too long a time/],
    ['ScriptLogBuffer 1048577', qr/ScriptLogBuffer takes a number of bytes from 0 to 1048576/],
    ['ScriptLogLength abc', qr/ScriptLogLength takes a number of bytes from 0 to 9223372036854775807, not 'abc'/],
    ['FcgidMaxRequestsPerProcess -2', qr/FcgidMaxRequestsPerProcess takes a whole number, at least -1/],
    ['FcgidMaxProcessesPerClass 0', qr/FcgidMaxProcessesPerClass takes a whole number, at least 1 \(more than 4096 counts as 4096\), not '0'/],
    ['FcgidMinProcessesPerClass 4097', qr/FcgidMinProcessesPerClass takes a whole number from 0 to 4096, not '4097'/],
    ['FcgidIdleTimeout 1073741825', qr/FcgidIdleTimeout takes a whole number from 0 to 1073741824 \(seconds\)/],
    ['FcgidIOTimeout 0', qr/FcgidIOTimeout takes a whole number from 1 to 1073741824 \(seconds\), not '0'/],
    ['FcgidBusyTimeout 0', qr/FcgidBusyTimeout takes a whole number from 1 to 1073741824 \(seconds\), not '0'/],
    ['FcgidMaxRequestLen 1M', qr/FcgidMaxRequestLen takes a whole number from 0 to 1125899906842624, not '1M'/],
    ['FcgidMaxRequestInMem -1', qr/FcgidMaxRequestInMem takes a whole number, at least 0/],
    ['FcgidFixPathinfo 2', qr/FcgidFixPathinfo takes 1 .* or 0, not '2'/],
    ['FcgidMaxProcesses 0', qr/FcgidMaxProcesses takes a whole number, at least 1 \(more than 65536 counts as 65536\)/],
    ['FcgidPassHeader "Bad Header"', qr/FcgidPassHeader takes a request header's name, not 'Bad Header'/],
    ['FcgidWrapper relative', qr/FcgidWrapper: 'relative' is not an absolute path/],
    ["FcgidWrapper $dir", qr/FcgidWrapper: '\Q$dir\E' is not an executable file/],
    ['FcgidWrapper /bin/cat php', qr/FcgidWrapper: a suffix starts with '\.' \(\.php\), not 'php'/],
    ['FcgidWrapper "/bin/cat' . (' a' x 33) . '"', qr/FcgidWrapper: '\/bin\/cat a.*' has more than 32 arguments/],
    ['FcgidWrapper "/bin/cat ' . ('x' x 4090) . '"', qr/FcgidWrapper: the command line is longer than 4096 bytes/],
    ['FcgidCmdOptions /bin/cat Bogus 1', qr/FcgidCmdOptions: unknown option 'Bogus'/],
    ['FcgidCmdOptions /bin/cat', qr/FcgidCmdOptions: at least one option must follow the command/],
    ['FcgidConnectTimeout abc', qr/FcgidConnectTimeout takes a whole number, not 'abc'/],
);
# Lines at the documented limits: accepted.
my @good = ('CGIplusMaxWorkers 1', 'CGIplusMaxWorkers 4096', 'CGIplusMinIdle 0',
    'CGIplusMaxRequests 4294967295', 'CGIplusMaxWorkersTotal 1', 'CGIplusMaxWorkersTotal 65536',
    'CGIplusSpawnRate 0', 'CGIplusSpawnRate 10000', 'CGIplusQueueDepth 0', 'CGIplusQueueDepth 100000',
    'CGIplusMaxAge none', 'CGIplusMaxAge 1500ms', 'CGIplusMaxAge 1.5m', 'CGIplusMaxAge 2h',
    'CGIplusIdleTimeout none', 'CGIplusQueueWait none', 'CGIplusTimeoutOutput none',
    'CGIplusTimeoutNoProgress 0', 'CGIplusKillGrace 1ms', 'CGIplusCalloutTimeout 1ms',
    'CGIplusSpawnBackoff 1s', 'CGIplusSpawnBackoff 1s 1s',
    'CGIplusRLimit cpu 4294967295', 'CGIplusRLimit as 4G', 'CGIplusRLimit nofile 1048576',
    'CGIplusRLimit nproc 4194304', 'CGIplusRLimit NOFILE 0', 'CGIplusSpoolMax 1',
    'CGIplusMode FastCGI', 'CGIplusFastCGIConnection KEEP', 'CGIplusDirect ON', 'CGIplusCompat Off',
    'CGIplusEngine none', 'CGIplusEngineMaxRSS 1M', 'CGIplusEngineMaxRSS none',
    'CGIplusBodyBuffer 0', 'CGIplusBodyBuffer 16M', 'CGIplusBodyMinRate 0', 'CGIplusBodyMinRate 1G',
    'CGIplusResponseBuffer 0', 'CGIplusResponseBuffer 16M', 'CGIplusResponseSpoolMax 0',
    'CGIplusResponseSpoolMax 1024G', 'CGIplusMaxHeaderSize 1024', 'CGIplusMaxHeaderSize 1048576',
    'CGIplusScriptLog none', 'CGIplusScriptLogLength 0', 'CGIplusScriptLogBuffer 0',
    'CGIplusScriptLogBuffer 1048576', join('', map { "CGIplusSetEnv V$_ x\n" } 1 .. 64),
    'CGIplusSetEnv A ' . ('x' x 4094), 'CGIplusUser #1 #1',
    "CGIplusRunnerKeyFile $key\nCGIplusRunnerSocket $dir/" . ('s' x (107 - length("$dir/") - 5)) . '.sock',
    'CGIplusWebSocketMaxMessage 125', 'CGIplusWebSocketMaxMessage 16M', 'CGIplusWebSocketSendQueue 1K',
    'CGIplusWebSocketSendQueue 64M', 'CGIplusWebSocketOverflow 1011', 'CGIplusWebSocketOverflow DROP',
    'CGIplusWebSocketMaxConnections 1', 'CGIplusWebSocketMaxConnections 100000000',
    'CGIplusWebSocketMaxConnections none', 'CGIplusWebSocketMaxPerAddress none',
    'CGIplusWebSocketMaxRate 100000000', 'CGIplusWebSocketDrain 10ms', 'CGIplusWebSocketDrain none',
    'CGIplusWebSocketPing 10ms', 'CGIplusWebSocketPing none', 'CGIplusWebSocketIdleTimeout none',
    'CGIplusWebSocketMessageTimeout none', 'CGIplusWebSocketMemory 1M', 'CGIplusWebSocketMemory 1024G',
    'CGIplusStaticCacheEntries 0', 'CGIplusStaticCacheEntries 1048576',
    "CGIplusStaticCacheBytes 0\nCGIplusStaticMaxMemFile 0", 'CGIplusStaticCacheBytes 1024G',
    "CGIplusStaticCacheBytes 2G\nCGIplusStaticMaxMemFile 1G", 'CGIplusStaticRevalidate 0',
    'CGIplusStaticRevalidate 86400000', 'CGIplusStaticCacheEviction CLOCK',
    "CGIplusStatic /st/ $dir/st phase=handler index=none symlinks=any dotfiles=allow precompressed=off",
    'CGIDScriptTimeout 0', 'CGIDScriptTimeout 500ms', 'CGIDScriptTimeout 2mi', 'CGIScriptTimeout 1h',
    'ScriptLogBuffer 1048576', 'ScriptLogLength 0',
    'FcgidMaxRequestsPerProcess -1', 'FcgidMaxRequestsPerProcess 99999999999999999999',
    'FcgidMaxProcessesPerClass 1', 'FcgidMaxProcessesPerClass 5000', 'FcgidMinProcessesPerClass 4096',
    'FcgidIdleTimeout 0', 'FcgidIdleTimeout 1073741824', 'FcgidProcessLifeTime 0', 'FcgidIOTimeout 1',
    'FcgidBusyTimeout 1', 'FcgidMaxRequestLen 0', 'FcgidMaxRequestLen 1125899906842624',
    'FcgidMaxRequestInMem 0', 'FcgidMaxRequestInMem 1000000000', 'FcgidFixPathinfo 0',
    'FcgidMaxProcesses 1', 'FcgidMaxProcesses 70000', 'FcgidWrapper /bin/cat virtual',
    'FcgidWrapper "/bin/cat' . (' a' x 32) . '" .php virtual',
    'FcgidWrapper "/bin/cat ' . ('x' x 4087) . '"',
    'FcgidCmdOptions /bin/cat InitialEnv A=b IdleTimeout 10 IOTimeout 10 MaxProcessLifetime 10 MaxRequestsPerProcess 10 MinProcesses 1 ConnectTimeout 3',
    'FcgidConnectTimeout -1');

my @names = sort keys %ctx;
my @in = (['S', '%s', 'server config'], ['V', "<VirtualHost 127.0.0.1:1>\n%s\n</VirtualHost>", '<VirtualHost>'],
          ['D', "<Directory $dir>\n%s\n</Directory>", '<Directory>'],
          ['D', "<Location /x>\n%s\n</Location>", '<Location>']);
my %why = (V => qr/cannot occur within <VirtualHost> section|not allowed here/,
           D => qr/not allowed in <(?:Directory|Location)> context|not allowed here|cannot occur within/);
plan tests => 1 + @names * @in + @names + @bad + @good + 3 + 1 + 1 + 4 + 1 + 1 + 3 + 2 + 14;

ok t_cmp(join(' ', grep { !$sample{$_} } @names), '', 'every directive of the table has a sample line here');

# ---- the contexts ----
for my $name (@names) {
    my ($pre, $line) = ref $sample{$name} ? @{ $sample{$name} } : ('', $sample{$name} // "$name x");
    for my $c (@in) {
        my ($rc, $out) = configtest("$pre\n" . sprintf($c->[1], $line));
        my $where = $c->[2];
        if ($refused{$name}) {
            ok t_cmp($rc != 0 && $out =~ /\Q$name\E: FastCGI authenticators, authorizers and access checkers are not supported/ ? 1 : 0,
                     1, "$name in $where: refused, saying why") or t_debug($out);
        }
        elsif ($ctx{$name}{ $c->[0] }) {
            ok t_cmp("$rc " . ($out =~ /Syntax OK/ ? 'OK' : $out), '0 OK', "$name in $where: accepted");
        }
        else {
            ok t_cmp($rc != 0 && $out =~ /\Q$name\E $why{ $c->[0] }/ ? 1 : 0, 1,
                     "$name in $where: refused, saying where") or t_debug($out);
        }
    }
}

# ---- the refusals and the limits ----
for my $c (@bad) {
    my ($rc, $out) = configtest("$c->[0]\n");
    my $shown = length $c->[0] > 80 ? substr($c->[0], 0, 77) . '...' : $c->[0];
    ok t_cmp($rc != 0 && $out =~ $c->[1] ? 1 : 0, 1, "'$shown' is refused: $c->[1]") or t_debug($out);
}
for my $line (@good) {
    my ($rc, $out) = configtest("$line\n");
    my $shown = length $line > 80 ? substr($line, 0, 77) . '...' : $line;
    ok t_cmp("$rc " . ($out =~ /Syntax OK/ ? 'OK' : $out), '0 OK', "'$shown' is accepted");
}
# mod_cgid's CGIDScriptTimeout beside mod_cgid: what mod_cgid takes
# ("5min") must not stop httpd because mod_cgiplus reads it too.
{
    chomp(my $libexec = `$vars->{apxs} -q LIBEXECDIR`);
    my ($rc, $out) = configtest("LoadModule cgid_module $libexec/mod_cgid.so\nCGIDScriptTimeout 5min\n");
    ok t_cmp("$rc " . ($out =~ /Syntax OK/ ? 'OK' : $out), '0 OK',
             "'CGIDScriptTimeout 5min' beside mod_cgid, which takes it: accepted");
    ($rc, $out) = configtest("CGIDScriptTimeout 5min\n");
    ok t_cmp($rc != 0 && $out =~ /CGIDScriptTimeout takes a time in seconds .* not '5min'/ ? 1 : 0, 1,
             'without mod_cgid: refused, saying why') or t_debug($out);
    ($rc, $out) = configtest("LoadModule cgid_module $libexec/mod_cgid.so\nCGIDScriptTimeout 5x\n");
    ok t_cmp($rc != 0 ? 1 : 0, 1, "'CGIDScriptTimeout 5x', which mod_cgid refuses too: refused");
}

# ---- .htaccess, and the defaults in effect: one started httpd ----
my $pdir = private_dir('directives-run');
my ($port, $vport) = (free_port(), free_port());
my $pool = "$vars->{documentroot}/pool";
make_path("$pdir/ht");
for my $name (@names) {
    make_path("$pdir/ht/$name");
    my $line = ref $sample{$name} ? $sample{$name}[1] : $sample{$name};
    open my $h, '>', "$pdir/ht/$name/.htaccess" or die;
    print $h "$line\n";
    close $h;
    open my $f, '>', "$pdir/ht/$name/f.txt" or die;
    print $f "plain\n";
    close $f;
}
make_path("$pdir/ht-opts");
open my $ho, '>', "$pdir/ht-opts/.htaccess" or die;
print $ho "FcgidWrapper /bin/cat .php\n";
close $ho;
open my $hf, '>', "$pdir/ht-opts/f.txt" or die;
print $hf "plain\n";
close $hf;
system('chmod', '-R', 'a+rX', "$pdir/ht", "$pdir/ht-opts");
open my $pc, '>', "$pdir/httpd.conf" or die;
print $pc private_conf($pdir, $port, ['alias'], <<"CONF");
Alias /ht/ $pdir/ht/
Alias /ht-opts/ $pdir/ht-opts/
<Directory $pdir/ht>
    Require all granted
    AllowOverride All
</Directory>
<Directory $pdir/ht-opts>
    Require all granted
    AllowOverride Options
</Directory>
Alias /p/ $pool/
Alias /q/ $pool/
<Directory $pool>
    Require all granted
    Options +ExecCGI
    SetHandler cgiplus-script
</Directory>
<Location /p/>
    CGIplusSetEnv POOL_defaults 1
</Location>
<Location /q/>
    CGIplusSetEnv POOL_cgid0 1
    CGIDScriptTimeout 0
</Location>
<Location /cgiplus-status>
    SetHandler cgiplus-status
</Location>
Listen 127.0.0.1:$vport
<VirtualHost 127.0.0.1:$vport>
    Timeout 5
    <Location /p/>
        CGIplusSetEnv POOL_vhost 1
    </Location>
</VirtualHost>
Alias /wsx/ $top/examples/python/
<Directory $top/examples/python>
    Require all granted
    Options +ExecCGI
    SetHandler cgiplus-script
</Directory>
CONF
close $pc;
private_start("$pdir/httpd.conf", $port) or die "httpd did not start\n";
for my $name (@names) {
    my $r = private_get($port, "/ht/$name/f.txt");
    if ($ctx{$name}{H} && !$refused{$name}) {
        ok t_cmp(resp_code($r), 200, "$name in .htaccess (AllowOverride All): taken");
    }
    else {
        my $said = $refused{$name} ? qr/\Q$name\E: FastCGI authenticators/ : qr/\Q$name\E not allowed here/;
        my $log = '';
        for (1 .. 20) { $log = private_log($pdir); last if $log =~ /$said/; select undef, undef, undef, 0.05 }
        ok t_cmp(resp_code($r) . ($log =~ /\Q$pdir\E\/ht\/\Q$name\E\/\.htaccess: $said/ ? ' said' : ''), '500 said',
                 "$name in .htaccess: 500, the error log naming it");
    }
}
ok t_cmp(resp_code(private_get($port, '/ht-opts/f.txt')), 500,
         'FcgidWrapper in .htaccess needs AllowOverride FileInfo: 500 under Options');

# The defaults the pool settings take (README; docs/RUNNER.md, "Pool
# settings"), as the runner's status page shows them.
ok t_cmp(resp_code(private_get($port, '/p/app.pl')), 200, 'a pool with no settings serves');
resp_code(private_get($port, '/q/app.pl'));
resp_code(private_get($vport, '/p/app.pl'));
my $st = JSON::PP->new->decode(resp_body(private_get($port, '/cgiplus-status?json')));
my %pools = map { my $p = $_; map { ($_ => $p) } @{ $p->{settings}{env} } } @{ $st->{pools} };
my $s = $pools{POOL_defaults}{settings} // {};
chomp(my $cpus = `nproc`);
my $mw = 4 * $cpus;
$mw = 8 if $mw < 8;
$mw = 64 if $mw > 64;
my $ug = join ':', (getpwnam $vars->{user})[2], (getgrnam $vars->{group})[2];
ok t_cmp(join(' ', map { "$_=" . ($s->{$_} // '-') } qw(max_workers min_idle max_requests max_age)),
         "max_workers=$mw min_idle=0 max_requests=0 max_age=0",
         'max_workers 4 a CPU (8 to 64), min_idle 0, max_requests 0, max_age none');
ok t_cmp(join(' ', map { "$_=" . ($s->{$_} // '-') } qw(idle_timeout spawn_rate queue_depth queue_wait)),
         'idle_timeout=300000 spawn_rate=20 queue_depth=100 queue_wait=10000',
         'idle_timeout 5m, spawn_rate 20, queue_depth 100, queue_wait 10 s');
ok t_cmp(join(' ', map { "$_=" . ($s->{$_} // '-') } qw(timeout_output timeout_noprogress)),
         'timeout_output=0 timeout_noprogress=59000', 'timeout_output none, timeout_noprogress 1 s below Timeout');
ok t_cmp(join(' ', map { "$_=" . ($s->{$_} // '-') } qw(rlimit_cpu rlimit_as rlimit_nofile rlimit_nproc fcgi_connection user)),
         "rlimit_cpu=0 rlimit_as=0 rlimit_nofile=0 rlimit_nproc=0 fcgi_connection=0 user=$ug",
         "no rlimits, fcgi_connection keep, httpd's User and Group");
# mod_cgid's CGIDScriptTimeout 0 is its "not set" (httpd's Timeout): the
# default here too, not "no timeout" (it was 0)
ok t_cmp($pools{POOL_cgid0}{settings}{timeout_noprogress} // '-', 59000,
         'CGIDScriptTimeout 0: the default no-progress timeout, as mod_cgid takes 0');
# A virtual host's own Timeout (5 s): the defaults below it, as README
# says (they were the main server's: 10 s and 59 s, past it)
ok t_cmp(join(' ', map { "$_=" . ($pools{POOL_vhost}{settings}{$_} // '-') } qw(queue_wait timeout_noprogress)),
         'queue_wait=4000 timeout_noprogress=4000',
         "in a virtual host with Timeout 5: queue_wait and timeout_noprogress 1 s below it");

# A WebSocket pool's (its own section of the page), held while one
# connection is open.
my $ws = IO::Socket::INET->new(PeerAddr => "127.0.0.1:$port", Timeout => 10) or die "connect: $!";
print $ws "GET /wsx/ws_echo.py HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\n"
    . "Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
    . "Sec-WebSocket-Version: 13\r\n\r\n";
my $head = '';
while ($head !~ /\r\n\r\n/) { last unless sysread $ws, $head, 4096, length $head }
ok t_cmp(resp_code($head), 101, 'a WebSocket upgrade with no settings is accepted');
my $wst = JSON::PP->new->decode(resp_body(private_get($port, '/cgiplus-status?json')))->{websocket};
my $wset = $wst->{pools}[0]{settings} // {};
ok t_cmp(join(' ', map { "$_=" . ($wset->{$_} // '-') } qw(max_message queue overflow max_connections per_address drain_ms)),
         'max_message=1048576 queue=1048576 overflow=1008 max_connections=0 per_address=0 drain_ms=600000',
         'CGIplusWebSocketMaxMessage 1M, SendQueue 1M, Overflow 1008, MaxConnections and MaxPerAddress none, Drain 10m');
ok t_cmp($wst->{memory_max}, 256 << 20, 'CGIplusWebSocketMemory 256M');
close $ws;

# runner-wide (docs/RUNNER.md, "Runner-wide keys")
my $rn = $st->{runner};
ok t_cmp(join(' ', map { "$_=" . ($rn->{$_} // '-') } qw(max_workers_total kill_grace_ms backoff_base_ms backoff_max_ms)),
         'max_workers_total=256 kill_grace_ms=2000 backoff_base_ms=1000 backoff_max_ms=60000',
         'max_workers_total 256, kill_grace 2s, backoff 1s to 60s');
ok t_cmp(join(' ', map { "$_=" . ($rn->{$_} // '-') } qw(http_timeout_ms slow_request_ms queue_memory queue_memory_pool)),
         'http_timeout_ms=60000 slow_request_ms=5000 queue_memory=67108864 queue_memory_pool=16777216',
         'http_timeout 60s, slow_request 5s, queue_memory 64M, queue_memory_pool 16M');

# ---- the runner's own file: a refused value says what is wrong ----
my $rdir = "$pdir/runner";
make_path($rdir);
chmod 0700, $rdir;
for my $c (['http_timeout 999ms', qr/http_timeout wants a duration of at least 1000ms/],
           ['ws_memory 2T', qr/ws_memory wants a number of bytes \(K, M or G allowed\)$/m],
           ['ws_memory 2048G', qr/ws_memory wants a number of bytes of at most 1T/],
           ['queue_memory 1023K', qr/queue_memory wants a number of bytes of at least 1M/],
           ['kill_grace none', qr/kill_grace wants a duration, N\[\.F\]\[ms\|s\|m\|h\] \(and not none\)/],
           ['kill_grace 9999999999999', qr/kill_grace is too long a time/],
           ['max_workers_total 65537', qr/max_workers_total is not 1\.\.65536/],
           ["[defaults]\nmax_requests abc", qr/max_requests is not 0\.\.4294967295/],
           ["[defaults]\nws_drain 5ms", qr/ws_drain wants a duration of at least 10ms or none/],
           ["[defaults]\nmax_age 5d", qr/max_age wants a duration, N\[\.F\]\[ms\|s\|m\|h\] or none/],
           ["[defaults]\nws_max_conns 0", qr/ws_max_conns is not 1\.\.100000000 or none/],
           ['die_with_parent maybe', qr/die_with_parent wants yes or no/],
           ['allow_user 65534:4294967295', qr/allow_user: a uid or gid is at most 2147483647/],
           ['bogus_key 1', qr/bogus_key: unknown global setting/]) {
    open my $fh, '>', "$rdir/r.conf" or die;
    print $fh "socket $rdir/r.sock\nkey_file $key\nuser $vars->{user}\nspool_dir $rdir/spool\n$c->[0]\n";
    close $fh;
    chmod 0600, "$rdir/r.conf";
    my $out = `timeout 10 $top/runner/cgiplus-runner --config $rdir/r.conf 2>&1`;
    my $rc = $? >> 8;
    (my $shown = $c->[0]) =~ s/\n/ /g;
    ok t_cmp($rc == 2 && $out =~ $c->[1] ? 1 : 0, 1, "the runner's '$shown' is refused: $c->[1]") or t_debug("$rc $out");
}
