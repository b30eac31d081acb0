# CGIplusEngine php under CGIplusMode cgi runs php-cgi once per request, as
# plain CGI (docs/APPS.md, "PHP"), with the same rules as its FastCGI mode:
# the .php files are php-cgi's data (no execute bit, no ExecCGI needed), and
# php-cgi gets REDIRECT_STATUS, as from mod_actions in Debian's php-cgi
# set-up. Before, every request was 502: php-cgi answered "Security Alert!
# The PHP CGI cannot be accessed directly" (cgi.force_redirect) without a
# header, or 403 when the file had no execute bit. A query without '='
# reaches php-cgi as arguments (as from mod_cgi), which php-cgi ignores
# when they are its query (CVE-2012-1823).
use strict;
use warnings FATAL => 'all';
use Apache::Test;
use Apache::TestUtil;
use lib 't/htdocs/apps';
use AppTest qw(curl url);

plan tests => 7, need { 'needs php-cgi' => -x '/usr/bin/php-cgi' };

my $vars = Apache::Test::config()->{vars};
my $dir = "$vars->{documentroot}/php";
ok t_cmp((stat "$dir/info.php")[2] & 0111, 0, 'the PHP files have no execute bit');

my (@pids, $code, $h, $body);
for my $i (1 .. 2) {
    ($code, $h, $body) = curl(url("/phpcgi/info.php/a/b?x=$i"));
    ok t_cmp($code, 200, "request $i: 200");
    ok t_cmp(join('|', $body =~ /^sapi=(.*)$/m, $body =~ /^QUERY_STRING=(.*)$/m, $body =~ /^PATH_INFO=(.*)$/m),
             "cgi-fcgi|x=$i|/a/b", "request $i: php-cgi ran the script with its query and path");
    push @pids, $body =~ /^pid=(\d+)$/m;
}
ok t_cmp(@pids == 2 && $pids[0] != $pids[1] ? 1 : "@pids", 1, 'a php-cgi process per request');
($code, $h, $body) = curl(url('/phpcgi/info.php?-s'));
ok t_cmp(($code == 200 && $body =~ /^sapi=/m && $body !~ /<\?php/) ? 1 : "$code $body", 1,
         '?-s runs the script (its source is not shown)');
