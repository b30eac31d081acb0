# The script log of failed requests (CGIplusScriptLog, per location), as
# httpd-tests' cgi.t checks mod_cgi's ScriptLog: entries for failures only,
# the request body cut at CGIplusScriptLogBuffer (256), no more entries once
# the file is over CGIplusScriptLogLength (40960). And opened as mod_cgi
# opens it: per entry, by the httpd child as User, appending and creating,
# after a stat of the path. So a directory that does not exist at startup
# is no startup error, a log removed or rotated away is made anew by the
# next failure, the length is that of the file as it is now, and a new log
# belongs to User.
use strict;
use warnings FATAL => 'all';
use Apache::Test;
use Apache::TestUtil;
use Apache::TestRequest qw(GET GET_RC POST_RC);
use File::Path qw(remove_tree);
use lib 't/lib';
use MainLog qw(log_offset log_wait);

my @post_content = (10, 99, 250, 255, 256, 257, 258, 1024);
plan tests => 24 + 3 * @post_content;

my $vars = Apache::Test::config()->{vars};
my $dir = "$vars->{t_logs}/slog";
my $log = "$dir/cgiplus_script.log";
sub size { return -s $log // -1 }
sub slurp { open my $fh, '<', $_[0] // $log or return ''; local $/; return <$fh> }

# The log's directory is missing (as when httpd started on a fresh tree:
# nothing is opened at startup; t/3a starts a server so): a failure is
# answered all the same, without an entry.
remove_tree($dir);
ok t_cmp(-e $dir ? 1 : 0, 0, 'the log\'s directory does not exist');
my $off = log_offset();
ok t_cmp(GET_RC('/cgi-slog/bogus-perl.pl'), 502, 'a failure meanwhile: 502 all the same');
ok t_cmp(-e $log ? 1 : 0, 0, 'and no log (its directory is still missing)');
ok t_cmp(log_wait($off, qr{CGIPLUS1260: cannot open the script log '\Q$log\E' for the failure of \S+/bogus-perl\.pl; no entry}), 1,
         'the lost entry is said (1260, debug)');
# the plain CGI process of that request, through the runner's debug lines
ok t_cmp(log_wait($off, qr{CGIPLUS2017: started cgi pid (\d+) for (\S+/bogus-perl\.pl)\n(?s:.*)CGIPLUS2027: cgi pid \1 of \2 exited with code 255 during request \d+ \(/cgi-slog/bogus-perl\.pl\) before ending its response(?s:.*)CGIPLUS2029: cgi pid \1 of \2 exited with code 255}), 1,
         'its process started (2017), died before its response (2027) and was reaped (2029)');

# The directory appears, writable by User only (as a log directory would be).
my ($uid, $gid) = ((getpwnam $vars->{user})[2], (getgrnam $vars->{group})[2]);
mkdir $dir, 0755 or die "$dir: $!";
chown $uid, $gid, $dir;
GET_RC '/cgi-slog/perl.pl';
GET_RC '/cgi-plus/bogus-perl.pl';
ok t_cmp(-e $log ? 1 : 0, 0, 'no log for a success or for a failure elsewhere');

# A script that dies before its header: the first entry makes the file.
ok t_cmp(GET_RC('/cgi-slog/bogus-perl.pl'), 502, 'bogus-perl.pl: 502');
my $text = slurp();
ok t_cmp(size() > 0 ? 1 : 0, 1, 'the next failure makes the log');
ok t_cmp((stat $log)[4], $uid, "it belongs to User ($vars->{user}), not root");
ok t_cmp($text, qr{^%% \[[^\]]+\] GET /cgi-slog/bogus-perl\.pl HTTP/1\.1\n%% 502 \S+/bogus-perl\.pl\n%request\n}m,
         'entry head as mod_cgi writes it');
ok t_cmp($text, qr{^Host: }m, 'request headers in the entry');

# A malformed header: the reason, stdout and stderr.
my $size = size();
ok t_cmp(GET_RC('/cgi-slog/bogus1k.pl'), 502, 'bogus1k.pl: 502');
$text = substr(slurp(), $size);
ok t_cmp($text, qr{^%response\n.*malformed header line \(no colon\): 'Not a header'$}ms, 'the reason');
ok t_cmp($text, qr{^%stdout\nNot a header\n}m, 'what the script wrote');
ok t_cmp($text, qr{^%stderr\n(?:bogus1k k{100}\n){10}}m, 'its stderr');

# Refused before running (AcceptPathInfo off): mod_cgi's short form.
$size = size();
ok t_cmp(GET_RC('/cgi-slog/acceptpathinfooff.sh/foo'), 404, 'path info refused: 404');
ok t_cmp(substr(slurp(), $size),
         qr{^%% \[[^\]]+\] GET /cgi-slog/acceptpathinfooff\.sh/foo HTTP/1\.1\n%% 404 \S+\n%error\nAcceptPathInfo off disallows user's path\n\z},
         'refusal entry');

# Removed between two failures: the next one makes it anew.
unlink $log or die "$log: $!";
GET_RC '/cgi-slog/bogus-perl.pl';
ok t_cmp(slurp(), qr{\A%% \[[^\]]+\] GET /cgi-slog/bogus-perl\.pl HTTP/1\.1\n%% 502 }, 'a removed log is made anew, with the new entry alone');

# Rotated (renamed away, as logrotate does): the old file keeps what it had.
rename $log, "$log.1" or die "$log: $!";
my $old = slurp("$log.1");
GET_RC '/cgi-slog/bogus1k.pl';
ok t_cmp(slurp(), qr{\A%% \[[^\]]+\] GET /cgi-slog/bogus1k\.pl HTTP/1\.1\n}, 'after a rotation the entry goes to a new file');
ok t_cmp(slurp("$log.1"), $old, 'and not to the rotated one');

# POST bodies: at most ScriptLogBuffer (256) bytes of each are kept.
my $content = 0;
for my $length (@post_content) {
    $content++;
    $size = size();
    ok t_cmp(POST_RC('/cgi-slog/bogus-perl.pl', content => "$content" x $length), 502,
             "POST $length bytes to bogus-perl.pl: 502");
    ok t_cmp(size() > $size ? 1 : 0, 1, "POST $length: the log grew");
    my $want = $length > 256 ? 256 : $length;
    ok t_cmp(substr(slurp(), $size), qr/^(?:$content){$want}\n/m,
             "POST $length: $want body bytes logged");
}

# The length (40960) is that of the file now: at it, an entry still goes
# in (mod_cgi stops only past it); past it, none; cut back, entries again.
sub fill { my ($n) = @_; open my $fh, '>', $log or die; print $fh 'x' x $n; close $fh }
fill(40960);
GET_RC '/cgi-slog/bogus-perl.pl';
ok t_cmp(size() > 40960 ? 1 : 0, 1, 'a log of exactly ScriptLogLength bytes gets the entry');
$size = size();
GET_RC '/cgi-slog/bogus1k.pl';
ok t_cmp(size(), $size, 'no entry once over the length');
fill(40961);
GET_RC '/cgi-slog/bogus-perl.pl';
ok t_cmp(size(), 40961, 'a log one byte over: no entry');
truncate $log, 100;
GET_RC '/cgi-slog/bogus-perl.pl';
ok t_cmp(size() > 100 ? 1 : 0, 1, 'cut back under the length: entries again');
