# A broken deploy of a WSGI or PSGI application through the launchers: a
# module that does not import (3102), a .cgp line cgiplus-wsgi or
# cgiplus-psgi does not know (3100, 3152), a .psgi file that does not
# compile (3154). Each request to it is answered 502 (the worker exits
# before any output; 503 with Retry-After once the crash-loop backoff
# holds new workers back), the launcher's line says why, naming the file,
# and the fixed file (a deploy) is served at once, once per request.
use strict;
use warnings FATAL => 'all';
use Apache::Test;
use Apache::TestUtil;
use Time::HiRes qw(sleep);
use lib 't/lib';
use PrivateHttpd qw(private_conf private_start private_dir private_log private_wait_log
                    private_get resp_code resp_body);
use FreePort qw(free_port);

my $vars = Apache::Test::config()->{vars};
my $top = $vars->{top_dir};
my $wsgi = "$top/lib/python/cgiplus-wsgi";
my $psgi = "$top/lib/perl/cgiplus-psgi";
my $dir = private_dir('err-launcher');
mkdir "$dir/app" or die "$dir/app: $!";
chmod 0755, "$dir/app";

sub put {
    my ($name, $text, $mode) = @_;
    open my $fh, '>', "$dir/app/$name.new" or die "$name: $!";
    print $fh $text;
    close $fh;
    chmod $mode // 0755, "$dir/app/$name.new";
    rename "$dir/app/$name.new", "$dir/app/$name" or die "rename $name: $!";
}
# a good application of each kind: its pid and a count of its requests
put('good.py', "import os\nn = [0]\ndef app(environ, start_response):\n    n[0] += 1\n"
    . "    start_response('200 OK', [('Content-Type', 'text/plain')])\n"
    . "    return [('good %d n=%d\\n' % (os.getpid(), n[0])).encode()]\n", 0644);
put('good.psgi', "my \$n = 0;\nsub { \$n++; [200, ['Content-Type' => 'text/plain'], [\"good \$\$ n=\$n\\n\"]] };\n", 0644);
put('broken.psgi', "sub { [200, [], ['x']] \n", 0644);     # no closing brace

# name => [broken text, its log line, fixed text]
my %cases = (
    'import.cgp' => ["#!$wsgi\napp nosuchmodule_cgiplus:app\npath $dir/app\n",
                     qr{stderr from \Q$dir\E/app/import\.cgp \(pid \d+\): CGIPLUS3102: cgiplus-wsgi: cannot import nosuchmodule_cgiplus:app: No module named},
                     "#!$wsgi\napp good:app\npath $dir/app\n"],
    'wline.cgp'  => ["#!$wsgi\napp good:app\npath $dir/app\nfrobnicate yes\n",
                     qr{CGIPLUS3100: cgiplus-wsgi: [^\n]*\Q$dir\E/app/wline\.cgp[^\n]*line 4},
                     "#!$wsgi\napp good:app\npath $dir/app\n"],
    'pline.cgp'  => ["#!$psgi\napp $dir/app/good.psgi\nfrobnicate yes\n",
                     qr{CGIPLUS3152: cgiplus-psgi: [^\n]*\Q$dir\E/app/pline\.cgp[^\n]*line 3},
                     "#!$psgi\napp $dir/app/good.psgi\n"],
    'load.cgp'   => ["#!$psgi\napp $dir/app/broken.psgi\n",
                     qr{CGIPLUS3154: cgiplus-psgi: [^\n]*\Q$dir\E/app/broken\.psgi},
                     "#!$psgi\napp $dir/app/good.psgi\n"],
);
put($_, $cases{$_}[0]) for keys %cases;
plan tests => 1 + 6 * keys %cases;

my $port = free_port();
open my $cf, '>', "$dir/httpd.conf" or die "httpd.conf: $!";
print $cf private_conf($dir, $port, ['alias', 'mime'], <<"CONF");
LogLevel info cgiplus:info
TypesConfig /dev/null
Alias /app/ $dir/app/
<Directory $dir/app>
    Require all granted
    Options +ExecCGI
    AddHandler cgiplus-script .cgp
    CGIplusMaxWorkers 1
</Directory>
CONF
close $cf;
ok t_cmp(private_start("$dir/httpd.conf", $port) ? 1 : 0, 1, 'the private httpd started');


for my $name (sort keys %cases) {
    my ($broken, $why, $fixed) = @{ $cases{$name} };
    my @r = map { private_get($port, "/app/$name") } 1 .. 3;
    my @codes = map { resp_code($_) } @r;
    ok t_cmp($codes[0], 502, "$name: answered 502");
    ok t_cmp(join(' ', grep { $_ != 502 && $_ != 503 } @codes[1, 2]), '',
             "$name: and again 502, or 503 in the crash-loop backoff (@codes)");
    ok t_cmp(join(' ', map { /^Retry-After: \d+/mi ? 'retry' : 'none' } grep { resp_code($_) == 503 } @r),
             join(' ', map { 'retry' } grep { $_ == 503 } @codes), "$name: a 503 says when to retry");
    ok t_cmp(private_wait_log($dir, $why), 1, "$name: the launcher says why, naming the file");
    # The deploy of the fixed file: served at once, each request once.
    sleep 1.1;  # (another mtime second)
    put($name, $fixed);
    my @ok = map { resp_body(private_get($port, "/app/$name")) } 1 .. 2;
    ok t_cmp($ok[0], qr/\Agood \d+ n=1\n\z/, "$name: fixed, it is served at once");
    my ($pid) = $ok[0] =~ /good (\d+)/;
    ok t_cmp($ok[1], "good " . ($pid // 0) . " n=2\n", "$name: by the same worker next, once per request");
}
