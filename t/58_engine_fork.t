# A process a script forks under an engine ends where it leaves the script,
# as a CGI program's child does. Before, exit (Perl) or sys.exit (Python)
# in a forked child was the engine's end of a request: the child went on
# into the engine's loop, wrote a sentinel that ended the response of
# whatever request the engine served then (Python: with a copy of the
# forking request's unflushed output, so the next client got another
# client's page with 200; Perl: an empty response, 502), read requests off
# CGIPLUSIN beside the engine, and the engine's own answer, coming after,
# had it stopped as broken. Now the child exits there, and the Python
# engine flushes the request's streams before fork as Perl does. Both
# engines, on the direct path and relayed, one engine per pool.
use strict;
use warnings FATAL => 'all';
use Apache::Test;
use Apache::TestUtil;
use lib 't/lib', 't/htdocs/apps';
use AppTest qw(curl url);
use MainLog qw(log_offset log_since);

my $vars = Apache::Test::config()->{vars};
my $flag = "$vars->{t_logs}/engine_fork_flag";
open my $fh, '>', $flag or die "$flag: $!";
close $fh;
chmod 0666, $flag;

my @cases = (['perl', '/eperl/forkchild.pl'], ['perl relayed', '/eperlr/forkchild.pl'],
             ['python', '/epy/forkchild.py'], ['python relayed', '/epyr/forkchild.py']);
plan tests => 5 * @cases;

for my $c (@cases) {
    my ($how, $path) = @$c;
    my ($code, $h, $body) = curl(url("$path?first"));
    my ($pid) = $body =~ /pid (\d+)/;
    $pid //= 0;
    my $off = log_offset();
    ($code, $h, $body) = curl(url("$path?fork"));
    ok t_cmp("$code $body", "200 answer to fork pid $pid\n", "$how: the forking request's own answer");
    # the child ends while the engine runs this request
    ($code, $h, $body) = curl(url("$path?wait"));
    ok t_cmp("$code $body", "200 answer to wait pid $pid\n",
             "$how: the next request gets its own answer, nothing of the child's");
    ($code, $h, $body) = curl(url("$path?after"));
    ok t_cmp("$code $body", "200 answer to after pid $pid\n", "$how: the same engine serves on");
    ($code, $h, $body) = curl(url("$path?after2"));
    ok t_cmp("$code $body", "200 answer to after2 pid $pid\n", "$how: and again (no child took a request)");
    ok t_cmp(join("\n", grep { /CGIPLUS(?:1130|1705|2025|1076):/ } split /\n/, log_since($off)), '',
             "$how: no worker stopped as broken, no bad header");
}
