# What an administrator reads (issue 25, point 11), on a private httpd:
# counts and nouns agree in the runner's log lines and on the status page
# ("1 idle worker stops", "after 1 request", "at most 1 worker"); a script
# that ends a request with nothing but its end marker and then exits gets a
# 1060 that points at the runner's 2028, which says how it exited, at warn;
# and a clean stop leaves DefaultRuntimeDir as found: no
# cgiplus-runner.conf, cgiplus-spool/, socket or pidfile.
use strict;
use warnings FATAL => 'all';
use Apache::Test;
use Apache::TestUtil;
use Time::HiRes qw(sleep);
use lib 't/lib', 't/htdocs/pool/lib';
use FreePort qw(free_port);
use PrivateHttpd qw(private_conf private_start private_stop fresh_dir);
use PoolTest qw(wait_for version_script);
use LWP::UserAgent;

plan tests => 13;

my $vars = Apache::Test::config()->{vars};
my $dir = "$vars->{t_logs}/runtime_words";
my $port = free_port(); # (an offset from the suite's port meets its virtual hosts)
my $lib = "$vars->{top_dir}/lib/perl";
fresh_dir($dir);
fresh_dir("$dir/www");

sub script {
    my ($name, $text) = @_;
    open my $fh, '>', "$dir/www/$name.new" or die;
    print $fh $text;
    close $fh;
    chmod 0755, "$dir/www/$name.new";
    rename "$dir/www/$name.new", "$dir/www/$name" or die;
}
# Ends its first request empty, then exits 3 (a script that dies in its
# request loop after ending the request).
script('empty.pl', <<"PERL");
#!/usr/bin/perl
use lib '$lib';
use CGIplus;
CGIplus::accept();
CGIplus::finish();
exit 3;
PERL
script('app.pl', version_script(1));

open my $cf, '>', "$dir/httpd.conf" or die;
print $cf private_conf($dir, $port, ['alias'], <<"CONF");
LogLevel info
CGIplusMaxWorkersTotal 1
CGIplusIdleTimeout 1m
Alias /s/ $dir/www/
<Directory $dir/www>
    Require all granted
    Options +ExecCGI
    SetHandler cgiplus-script
</Directory>
<Location /cgiplus-status>
    SetHandler cgiplus-status
    Require all granted
</Location>
CONF
close $cf;

sub log_text { open my $fh, '<', "$dir/error_log" or return ''; local $/; return <$fh> }
my $ua = LWP::UserAgent->new(timeout => 20);
sub get { my $r = $ua->get("http://127.0.0.1:$port$_[0]"); return ($r->code, $r->decoded_content // '') }

ok t_cmp(private_start("$dir/httpd.conf", $port), 1, 'a private httpd starts');
# However the test ends, this httpd stops.
END { private_stop("$dir/httpd.pid") if -s "$dir/httpd.pid" }
ok t_cmp(wait_for(sub { log_text() =~ /CGIPLUS2056: [^\n]*/ ? $& : '' }, 5), qr/at most 1 worker, /,
         'the runner\'s startup line: "at most 1 worker"');

my ($code) = get('/s/empty.pl');
ok t_cmp($code, 502, 'a request ended empty: 502');
ok t_cmp(wait_for(sub { log_text() =~ /CGIPLUS2028: worker pid \d+ of \S+empty\.pl ended/ }, 5) ? 1 : 0, 1,
         'the worker exits afterwards');
my ($pid) = log_text() =~ /CGIPLUS1060: .*empty\.pl \(worker pid (\d+) /;
$pid //= 0;
ok t_cmp(log_text(), qr/CGIPLUS1060: End of script output before headers: \S+empty\.pl \(worker pid \d+ ended the request with its end marker before any output; if it then exited, the runner's line 2028 for pid \d+ says how\)/,
         '1060 says what was seen and where to look, not that the process "wrote nothing"');
ok t_cmp(log_text(), qr/\[cgiplus-runner:warn\] \[pid \d+\] CGIPLUS2028: worker pid $pid of \S+empty\.pl ended: exited \(exited with code 3\) after 1 request in /,
         '2028 for that pid says how, at warn, with "after 1 request"');

# One idle worker of app.pl, then a deploy: "1 idle worker stops".
my ($c1, $b1) = get('/s/app.pl');
ok t_cmp("$c1 $b1", qr/^200 version=1 pid=\d+/, 'app.pl serves');
script('app.pl', version_script(2));
ok t_cmp(wait_for(sub { log_text() =~ /CGIPLUS2065: \S+app\.pl changed [^\n]*/ ? $& : '' }, 5),
         qr/ byte(?:s)?\): pool #\d+ rolls over to generation \d+; 1 idle worker stops, 0 busy ones after their request$/,
         'the deploy line: "1 idle worker stops"');
ok t_cmp(log_text() =~ /1 idle workers|after 1 requests|at most 1 workers|1 busy ones/ ? 1 : 0, 0,
         'no "1 ...s" anywhere in the log');

# The status page: one pool left after the deploy retired the other.
my ($sc, $html) = get('/cgiplus-status');
ok t_cmp($html, qr/\d+ of at most 1 worker, \d+ pools?, 0 reloads[;,]/,
         'the status page: "at most 1 worker"');
my ($np) = $html =~ /at most 1 worker, (\d+) pool/;
$np //= '?';
ok t_cmp($html =~ /at most 1 worker, 1 pool,|at most 1 worker, (?!1 )\d+ pools,/ ? 1 : 0, 1,
         "and the pool count agrees with its noun ($np)");

# A clean stop leaves the runtime directory as it was.
my $runner = do { open my $p, '<', "$dir/cgiplus-runner.pid" or die; my $l = <$p> // 0; $l =~ /(\d+)/ ? $1 : 0 };
private_stop("$dir/httpd.pid");
ok t_cmp(wait_for(sub { !$runner || !kill 0, $runner }, 15) ? 1 : 0, 1, 'httpd and its runner stop');
opendir my $dh, $dir or die;
my @left = sort grep { /^cgiplus-/ } readdir $dh;
ok t_cmp("@left", '', 'nothing of mod_cgiplus is left in DefaultRuntimeDir');
