# mod_cgi's and mod_cgid's directives (ScriptLog, ScriptLogLength,
# ScriptLogBuffer, CGIDScriptTimeout) in a configuration written for them.
# With mod_cgid loaded too (the test server): httpd starts, ScriptLog* stay
# mod_cgid's (mod_cgiplus writes nothing there), CGIDScriptTimeout gives
# the same 504 under both. With only mod_cgiplus (a private httpd): the
# same directives start httpd and mean the same: the script log in mod_cgi's
# format, the body cut at ScriptLogBuffer, the timeout as the no-progress
# timeout; bad values refuse to start with a sentence.
use strict;
use lib "t/lib";
use FreePort qw(free_port);
use warnings FATAL => 'all';
use Apache::Test;
use Apache::TestUtil qw(t_cmp);
use Apache::TestRequest ();
use Time::HiRes qw(time);
use lib 't/lib';
use RawHTTP qw(raw_request);
use PrivateHttpd qw(private_conf private_start private_stop private_check fresh_dir);

plan tests => 23;

my $cfg = Apache::Test::config();
my $vars = $cfg->{vars};
my $hp = Apache::TestRequest::hostport();
my $cgid_hp = "127.0.0.1:" . $cfg->port('cgiplus_cgidlog');

sub slurp { open my $fh, '<', $_[0] or return ''; local $/; return <$fh> }
sub timed { my $t = time; my $r = raw_request(@_); return ($r, time - $t) }

# ---- both loaded: mod_cgid keeps ScriptLog (it opens the file as User)
my $cgid_log = "$vars->{t_logs}/cgid_script.log";
open my $fh, '>', $cgid_log or die "$cgid_log: $!";
close $fh;
chmod 0666, $cgid_log;
my $r = raw_request($cgid_hp, POST => '/cgid-table/bogus1k.pl', [], 'b' x 40);
ok t_cmp($r->{code}, 500, 'mod_cgid: bogus1k.pl 500');
my $cgid_entry = slurp($cgid_log);
ok t_cmp($cgid_entry, qr{^%% \[[^\]]+\] POST /cgid-table/bogus1k\.pl HTTP/1\.1\n%% 500 \S+/bogus1k\.pl\n%request\n},
         "mod_cgid's entry in its ScriptLog");
my $size = -s $cgid_log;
$r = raw_request($cgid_hp, GET => '/compat-table/malformed.pl');
ok t_cmp($r->{code}, 500, 'compat scope on the same server: 500');
ok t_cmp(-s $cgid_log, $size, 'mod_cgiplus leaves mod_cgid\'s ScriptLog alone');

# CGIDScriptTimeout 1: the same 504 from both, after about a second.
my ($rc, $t) = timed($hp, GET => '/cgid-timeout/slow.pl?4');
ok t_cmp($rc->{code}, 504, 'mod_cgid, CGIDScriptTimeout 1: 504');
my ($rp, $tp) = timed($hp, GET => '/compat-timeout/slow.pl?4');
ok t_cmp($rp->{code}, 504, 'compat, CGIDScriptTimeout 1: 504');
ok t_cmp($tp < 3 ? 1 : $tp, 1, 'compat: the timeout fired after about a second');
($rp) = timed($hp, GET => '/compat-timeout/slow.pl?0');
ok t_cmp($rp->{code}, 200, 'compat: a script that answers in time: 200');

# ---- only mod_cgiplus: a private httpd
my $dir = "$vars->{t_logs}/only-cgiplus";
fresh_dir($dir);
my $port = free_port();
my $cgi = "$vars->{documentroot}/cgi";
my $extra = <<"CONF";
ScriptLog logs/cgi.log
ScriptLogLength 100000
ScriptLogBuffer 16
ScriptAlias /cgi-bin/ $cgi/
<Directory $cgi>
    Require all granted
</Directory>
ScriptSock logs/cgisock
<Location /cgi-bin/>
    CGIplusCompat on
    CGIDScriptTimeout 1
</Location>
<Location /cgi-bin/slow.pl>
    # mod_cgi's name, the same meaning (the later section wins)
    CGIScriptTimeout 2
</Location>
CONF
# logs/ (ScriptLog's directory) does not exist yet: as under mod_cgi, the
# log is opened per entry, as User, so httpd starts all the same.
open $fh, '>', "$dir/httpd.conf" or die;
print $fh private_conf($dir, $port, ['alias'], $extra);
close $fh;
my ($exit, $out) = private_check("$dir/httpd.conf");
ok t_cmp($exit, 0, 'only mod_cgiplus: httpd -t accepts ScriptLog* and CGIDScriptTimeout');
ok t_cmp(private_start("$dir/httpd.conf", $port), 1, 'only mod_cgiplus: httpd starts');
my $hp2 = "127.0.0.1:$port";
my $log = "$dir/logs/cgi.log";
ok t_cmp(-e "$dir/logs" ? 1 : 0, 0, 'ScriptLog\'s directory is missing: nothing is made at startup');
mkdir "$dir/logs";
chown scalar(getpwnam $vars->{user}), scalar(getgrnam $vars->{group}), "$dir/logs";
$r = raw_request($hp2, GET => '/cgi-bin/perl.pl');
ok t_cmp($r->{code}, 200, 'a good script: 200');
ok t_cmp(-e $log ? 1 : 0, 0, 'no entry (no file) for a success');
$r = raw_request($hp2, POST => '/cgi-bin/bogus1k.pl', [], 'b' x 40);
ok t_cmp($r->{code}, 500, 'bogus1k.pl: 500 as mod_cgi');
my $entry = slurp($log);
ok t_cmp($entry, qr{^%% \[[^\]]+\] POST /cgi-bin/bogus1k\.pl HTTP/1\.1\n%% 500 \S+/bogus1k\.pl\n%request\n},
         'entry head in mod_cgi\'s format');
# The request part is mod_cgid's own, byte for byte (bar Host's port and the URL).
my ($mine) = $entry =~ /(%request\n.*?)%response\n/s;
my ($theirs) = $cgid_entry =~ /(%request\n.*?)%response\n/s;
s/^Host: .*$/Host: X/m for $mine, $theirs;
ok t_cmp($mine, $theirs, 'headers and the body cut at ScriptLogBuffer (16) as mod_cgid writes them');
ok t_cmp($entry, qr{%response\n.*%stdout\nNot a header\n}s, 'what the script wrote');
($r, $t) = timed($hp2, GET => '/cgi-bin/slow.pl?5');
ok t_cmp($r->{code}, 504, 'CGIScriptTimeout 2 alone: 504');
ok t_cmp($t > 1.5 && $t < 4 ? 1 : $t, 1, 'after about two seconds');
$r = raw_request($hp2, GET => '/cgi-bin/slow.pl?1');
ok t_cmp($r->{code}, 200, 'silent for 1 s under CGIScriptTimeout 2: 200');
private_stop("$dir/httpd.pid");

# Bad values: httpd refuses to start and says why.
for my $bad (['CGIDScriptTimeout soon', qr/CGIDScriptTimeout takes a time in seconds/],
             ['CGIScriptTimeout 5x', qr/CGIScriptTimeout takes a time in seconds/],
             ['ScriptLogLength lots', qr/ScriptLogLength takes a number of bytes/]) {
    open $fh, '>', "$dir/bad.conf" or die;
    print $fh private_conf($dir, $port, ['alias'], $bad->[0]);
    close $fh;
    ($exit, $out) = private_check("$dir/bad.conf");
    ok t_cmp($exit != 0 && $out =~ $bad->[1] ? 1 : $out, 1, "'$bad->[0]' is refused with a reason");
}
