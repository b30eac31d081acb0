# Issue 22, part 3: PHP, persistent. Debian's php-cgi as pool workers over
# FastCGI (CGIplusEngine php): one pool serves every .php file of its scope
# (files need no execute bit), php-cgi's own php.ini (the cgi SAPI's) is
# read, OPcache serves later requests from its cache, SCRIPT_FILENAME,
# PATH_INFO and PATH_TRANSLATED are what PHP expects with cgi.fix_pathinfo,
# no recycling by default (as php-fpm: php-cgi's own every 500 requests
# off), and with CGIplusMaxRequests PHP_FCGI_MAX_REQUESTS stays above the
# pool's recycling (no worker ever exits under a request: 40 requests over
# workers recycled every 5 all answer 200), errors go to the error log;
# direct and relayed.
use strict;
use warnings FATAL => 'all';
use Apache::Test;
use Apache::TestUtil;
use Time::HiRes qw(sleep);
use lib 't/htdocs/apps', 't/htdocs/pool/lib';
use AppTest qw(curl url);
use PoolTest qw(status);

plan tests => 42, need { 'needs php-cgi (Debian package php-cgi)' => -x '/usr/bin/php-cgi' };

my $vars = Apache::Test::config()->{vars};
my $logf = "$vars->{t_logs}/error_log";
my $dir = "$vars->{documentroot}/php";
sub kv { my %h = $_[0] =~ /^(\w+)=(.*)$/mg; \%h }
sub log_text { open my $fh, '<', $logf or return ''; local $/; <$fh> }

ok t_cmp((stat "$dir/info.php")[2] & 0111, 0, 'the PHP files have no execute bit');

# CGIplusEngine php without AddHandler: the scope's .php files are the
# engine's, as under php-fpm's or mod_php's FilesMatch (before, httpd sent
# their source); other files stay files, and DirectoryIndex finds index.php.
{
    my ($c1, undef, $b1) = curl(url('/phpauto/index.php'));
    my ($c2, undef, $b2) = curl(url('/phpauto/'));
    my ($c3, undef, $b3) = curl(url('/phpauto/notes.txt'));
    ok t_cmp("$c1 $b1", "200 auto sapi=cgi-fcgi\n", 'CGIplusEngine php alone: a .php file runs, no source sent');
    ok t_cmp("$c2 $b2", "200 auto sapi=cgi-fcgi\n", 'and the directory index index.php too');
    ok t_cmp("$c3 $b3", "200 plain text beside the PHP files\n", 'another file is sent as it is');
}

for my $p (qw(php1 phpr)) {
    my ($code, $h, $body) = curl(url("/$p/info.php/a/b?x=1"));
    my $e = kv($body);
    ok t_cmp("$code $e->{sapi}", '200 cgi-fcgi', "/$p: php-cgi answers as a FastCGI worker");
    ok t_cmp($e->{ini}, qr{^/etc/php/[\d.]+/cgi/php\.ini$}, "/$p: the cgi SAPI's php.ini is read");
    ok t_cmp($e->{fix_pathinfo}, 1, "/$p: cgi.fix_pathinfo as php.ini has it (1)");
    ok t_cmp("$e->{SCRIPT_FILENAME}|$e->{SCRIPT_NAME}|$e->{PATH_INFO}",
             "$dir/info.php|/$p/info.php|/a/b", "/$p: SCRIPT_FILENAME, SCRIPT_NAME, PATH_INFO");
    ok t_cmp("$e->{PATH_TRANSLATED}|$e->{PHP_SELF}|$e->{REQUEST_URI}",
             "$vars->{documentroot}/a/b|/$p/info.php/a/b|/$p/info.php/a/b?x=1",
             "/$p: PATH_TRANSLATED, PHP_SELF, REQUEST_URI");
    ok t_cmp($e->{cwd}, $dir, "/$p: the script's directory is the working directory");
    ok t_cmp("$e->{max_requests} $e->{children}", '0 0',
             "/$p: no recycling by default, as php-fpm: PHP_FCGI_MAX_REQUESTS 0 (php-cgi's own 500 off), PHP_FCGI_CHILDREN 0");

    # One process, OPcache across requests, for every script of the scope.
    my ($hits1, $pid) = ($e->{hits}, $e->{pid});
    (undef, undef, $body) = curl(url("/$p/info.php"));
    (undef, undef, $body) = curl(url("/$p/info.php"));
    my $e3 = kv($body);
    ok t_cmp("$e3->{pid} $e3->{opcache}", "$pid on", "/$p: the same php-cgi process, OPcache on");
    ok t_cmp($e3->{hits} > $hits1 ? 1 : 0, 1, "/$p: OPcache serves the script from its cache ($hits1 -> $e3->{hits} hits)");
    (undef, undef, $body) = curl(url("/$p/other.php"));
    ok t_cmp($body, "other pid=$pid\n", "/$p: another .php file, the same pool and process");
    # past php-cgi's own 500 requests, and the runner recycles nothing
    my $h2 = `h2load --h1 -c 2 -n 600 ${\ url("/$p/other.php")} 2>&1`;
    (undef, undef, $body) = curl(url("/$p/other.php"));
    ok t_cmp(($h2 =~ /(\d+) succeeded/)[0] . " $body", "600 other pid=$pid\n",
             "/$p: 600 requests more, the same php-cgi process serves on");

    ($code, undef, $body) = curl('--data', 'name=ann&n=2', url("/$p/info.php"));
    ok t_cmp(kv($body)->{post}, '{"name":"ann","n":"2"}', "/$p: a form POST reaches \$_POST");

    # Over 64 KiB of CGI variables: PHP's FastCGI reads each PARAMS record
    # on its own and dropped the connection at a pair cut by a record's end
    # (502 after five tries); php-fpm behind mod_proxy_fcgi answers it.
    ($code, undef, $body) = curl((map { ('-H', "X-Big$_: " . ('v' x (7000 + 37 * $_))) } 1 .. 12),
                                 url("/$p/info.php?big=1"));
    $e = kv($body);
    ok t_cmp("$code " . ($e->{QUERY_STRING} // "") . " " . ($e->{xbig} // ""), '200 big=1 ' . (7000 + 37 * 12),
             "/$p: a request with 90 KB of headers reaches PHP, every header whole");

    # error_log() is a STDERR record: the error log, naming the script.
    my $mark = length log_text();
    curl(url("/$p/info.php?log=$p-marker"));
    for (1 .. 50) { last if substr(log_text(), $mark) =~ /php-test: $p-marker/; sleep 0.1 }
    ok t_cmp(substr(log_text(), $mark), qr/CGIPLUS1050: stderr from \Q$dir\E\/info\.php \(pid $pid\): .*php-test: $p-marker/,
             "/$p: error_log() lands in the error log with the script and pid");
    ($code) = curl(url("/$p/info.php?fatal=1"));
    ok t_cmp($code, 500, "/$p: a fatal error is php's own 500");
}

# Recycling in step: workers replaced every 5 requests; php-cgi would exit
# after 6 by itself; 40 requests, 4 at a time, all answered.
{
    my (%pids, @codes);
    my @kids;
    pipe my $rd, my $wr or die;
    for my $k (1 .. 4) {
        my $pid = fork // die;
        if (!$pid) {
            close $rd;
            for (1 .. 10) {
                my ($code, undef, $body) = curl(url('/php5/info.php'));
                print $wr "$code " . (kv($body)->{pid} // 0) . " " . (kv($body)->{max_requests} // '') . "\n";
            }
            exit 0;
        }
        push @kids, $pid;
    }
    close $wr;
    my @lines = <$rd>;
    waitpid $_, 0 for @kids;
    my (%by, %max);
    for (@lines) { my ($c, $p, $m) = split; push @codes, $c; $by{$p}++; $max{$m}++ }
    ok t_cmp(scalar(grep { $_ == 200 } @codes), 40, '40 requests on workers recycled every 5: all 200');
    ok t_cmp(join(',', keys %max), '6', 'PHP_FCGI_MAX_REQUESTS is 6 there (one above the pool\'s 5)');
    my @over = grep { $by{$_} > 5 } keys %by;
    ok t_cmp(scalar(@over), 0, 'no php-cgi process served more than 5 requests');
    ok t_cmp(scalar(keys %by) >= 8 ? 1 : 0, 1, 'so at least 8 processes served them (' . scalar(keys %by) . ')');
    # the runner logs each end as it reaps the worker
    my %ended;
    for (1 .. 50) {
        my %all = log_text() =~ /CGIPLUS2028: worker pid (\d+) of \/usr\/bin\/php-cgi ended: (\w+ \([^)]*\))/g;
        # only the processes that served these requests (other tests' end too)
        %ended = map { ($_ => $all{$_}) } grep { $by{$_} } keys %all;
        last if keys %ended >= scalar(keys %by) - 4; # all but the ones still serving
        sleep 0.1;
    }
    my %why;
    $why{$_}++ for values %ended;
    ok t_cmp(join(',', sort keys %why), 'max_requests (exited with code 0)',
             'each replaced worker ended for max_requests, on its SIGTERM (none killed, crashed or gone by itself)');
    # An idle php-cgi sits in a read() of its kept connection, which it
    # resumes after a signal: the runner ends the connection as it sends
    # SIGTERM, or each would wait out kill_grace and be killed.
    ok t_cmp(scalar(() = log_text() =~ /CGIPLUS2071: worker pid \d+ of \/usr\/bin\/php-cgi/g), 0,
             'no php-cgi worker outlived its SIGTERM (2071)');
}

# The status page counts the php-cgi pool's requests by script: /php1/ and
# /phpr/ share it (CGIplusDirect is not part of its key); /php1/'s go to the
# warm worker on the direct path, the child speaking FastCGI itself,
# /phpr/'s through the runner.
sub other_count {
    my ($n) = map { $_->{requests} } grep { $_->{script} eq "$dir/other.php" }
        map { @{ $_->{scripts} // [] } } grep { !$_->{retired} && $_->{script} eq '/usr/bin/php-cgi' }
        grep { ($_->{settings}{max_workers} // 0) == 1 } @{ status()->{pools} };
    return $n // 0;
}
my $before = other_count();
curl(url('/php1/other.php')) for 1 .. 3;
my $direct = other_count() - $before;
curl(url('/phpr/other.php')) for 1 .. 2;
ok t_cmp($direct, 3, 'the pool lists other.php with 3 more requests after 3 on the direct path');
ok t_cmp(other_count() - $before, 5, 'and 5 more after 2 relayed (one entry, both paths)');
