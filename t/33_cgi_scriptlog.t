# The script log of failed requests (CGIplusScriptLog, per location), as
# httpd-tests' cgi.t checks mod_cgi's ScriptLog: entries for failures only,
# the request body cut at CGIplusScriptLogBuffer (256), no more entries once
# the file is over CGIplusScriptLogLength (40960).
use strict;
use warnings FATAL => 'all';
use Apache::Test;
use Apache::TestUtil;
use Apache::TestRequest qw(GET GET_RC POST_RC);

my @post_content = (10, 99, 250, 255, 256, 257, 258, 1024);
plan tests => 12 + 3 * @post_content + 3;

my $log = Apache::Test::vars('t_logs') . '/cgiplus_script.log';
sub size { return -s $log // -1 }
sub slurp { open my $fh, '<', $log or return ''; local $/; return <$fh> }

ok t_cmp(-e $log ? 1 : 0, 1, 'the script log is created at startup');
# Left from an earlier run perhaps: empty it in place (httpd holds it open).
truncate $log, 0;
my $size = size();

# A success writes nothing; a failure elsewhere writes nothing here.
GET_RC '/cgi-slog/perl.pl';
GET_RC '/cgi-plus/bogus-perl.pl';
ok t_cmp(size(), $size, 'no entry for a success or for another location');

# A script that dies before its header.
ok t_cmp(GET_RC('/cgi-slog/bogus-perl.pl'), 502, 'bogus-perl.pl: 502');
my $text = slurp();
ok t_cmp(size() > $size ? 1 : 0, 1, 'an entry for the failure');
ok t_cmp($text, qr{^%% \[[^\]]+\] GET /cgi-slog/bogus-perl\.pl HTTP/1\.1\n%% 502 \S+/bogus-perl\.pl\n%request\n}m,
         'entry head as mod_cgi writes it');
ok t_cmp($text, qr{^Host: }m, 'request headers in the entry');

# A malformed header: the reason, stdout and stderr.
$size = size();
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

# Fill the log past CGIplusScriptLogLength; then it stops growing.
for (1 .. 60) {
    GET_RC '/cgi-slog/bogus1k.pl';
    last if size() > 40960;
}
$size = size();
ok t_cmp($size > 40960 ? 1 : 0, 1, 'the log reached its length');
GET_RC '/cgi-slog/bogus1k.pl';
ok t_cmp(size(), $size, 'no entry once over the length');
GET_RC '/cgi-slog/bogus-perl.pl';
ok t_cmp(size(), $size, 'still no entry');
