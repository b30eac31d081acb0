# SSI's exec element (<!--#exec cgi --> and <!--#exec cmd -->) over the same
# .shtml files, side by side: mod_include with mod_cgid (/ssi-cgid/ of the
# test server), with mod_cgid's exec element running the scripts of a
# CGIplusCompat scope through the runner (/ssi-compat/), and a private
# httpd with only mod_cgiplus (whose own exec element is then registered):
# the same output, the included script's environment included (bar ports,
# dates, ids); nph scripts and exec cgi with a query refused; Options
# IncludesNOEXEC refuses both forms; #exec cgi is plain CGI or persistent
# by the scope's CGIplusMode.
use strict;
use lib "t/lib";
use FreePort qw(free_port);
use warnings FATAL => 'all';
use Apache::Test;
use Apache::TestUtil qw(t_cmp);
use Apache::TestRequest ();
use lib 't/lib';
use RawHTTP qw(raw_request);
use PrivateHttpd qw(private_conf private_start private_stop fresh_dir);

my @files = ('exec-cgi.shtml?q=a%20b', 'exec-cmd.shtml/pi?q=a%20b', 'exec-cmd.shtml',
             'exec-nph.shtml', 'exec-redirect.shtml', 'exec-bad.shtml',
             'exec-malformed.shtml', 'noexec/exec-cgi.shtml', 'noexec/exec-cmd.shtml');
plan tests => 2 * @files + 1 + 1 + 4 + 2 + 4;

my $cfg = Apache::Test::config();
my $vars = $cfg->{vars};
my $hp = Apache::TestRequest::hostport();

# Output with what must differ between servers masked.
sub norm {
    my ($text, $prefix) = @_;
    $text =~ s{(?<![\w/])\Q$prefix/}{PREFIX/}g;
    # the servers' own settings, the client's headers, times and ids
    $text =~ s/^(HTTP_\w+|PATH|SERVER_PORT|SERVER_SOFTWARE|SERVER_ADMIN|SERVER_SIGNATURE|REMOTE_PORT|UNIQUE_ID|DATE_GMT|DATE_LOCAL|CGIPLUSEOF)=.*\n//mg;
    $text =~ s/pid=\d+/pid=N/g;
    $text =~ s/parent=\S+/parent=P/g;
    return $text;
}

sub get { my ($h, $prefix, $f) = @_; my $r = raw_request($h, GET => "$prefix/$f");
          return ($r->{code}, norm($r->{body}, $prefix)) }

my %cgid;
for my $f (@files) {
    my ($c, $b) = get($hp, '/ssi-cgid', $f);
    $cgid{$f} = $b;
    my ($c2, $b2) = get($hp, '/ssi-compat', $f);
    ok t_cmp("$c2 $b2", "$c $b", "mod_cgid's exec, CGIplusCompat script: $f as mod_cgid");
}
my $r = raw_request($hp, GET => '/ssi-compat/exec-pid.shtml');
ok t_cmp($r->{body}, qr/parent=cgiplus-runner/, 'the compat scope\'s included script ran in the runner');

# ---- only mod_cgiplus
my $dir = "$vars->{t_logs}/ssi-only";
fresh_dir($dir);
my $port = free_port();
my $ssi = "$vars->{documentroot}/ssi";
my $extra = <<"CONF";
TypesConfig /dev/null
DocumentRoot $vars->{documentroot}
Alias /ssi/ $ssi/
Alias /ssi-plus/ $ssi/
<Directory $ssi>
    Require all granted
    Options +Includes +ExecCGI
    AddType text/html .shtml
    AddOutputFilter INCLUDES .shtml
    AddHandler cgi-script .pl
    AcceptPathInfo On
</Directory>
<Directory $ssi/noexec>
    Options IncludesNOEXEC ExecCGI
</Directory>
<Location /ssi-plus/>
    CGIplusMode cgiplus
    CGIplusMaxWorkers 1
</Location>
CONF
open my $fh, '>', "$dir/httpd.conf" or die;
print $fh private_conf($dir, $port, ['alias', 'mime', 'include', 'unique_id'], $extra);
close $fh;
ok t_cmp(private_start("$dir/httpd.conf", $port), 1, 'only mod_cgiplus: httpd starts');
my $hp2 = "127.0.0.1:$port";
for my $f (@files) {
    my ($c, $b) = get($hp2, '/ssi', $f);
    ok t_cmp("$c $b", "200 $cgid{$f}", "mod_cgiplus's exec: $f as mod_cgid");
}
$r = raw_request($hp2, GET => '/ssi/exec-pid.shtml');
my @pids = $r->{body} =~ /pid=(\d+) parent=(\S+)/g;
ok t_cmp("@pids[1,3]", 'cgiplus-runner cgiplus-runner', 'exec cgi runs the script in the runner');
ok t_cmp($pids[0] != $pids[2] ? 'two processes' : 'one', 'two processes', 'plain CGI by default');
$r = raw_request($hp2, GET => '/ssi-plus/exec-pid.shtml');
@pids = $r->{body} =~ /pid=(\d+) parent=(\S+)/g;
ok t_cmp(scalar(@pids), 4, 'CGIplusMode cgiplus scope: both included');
ok t_cmp($pids[0], $pids[2], 'CGIplusMode cgiplus: one persistent worker serves both');
private_stop("$dir/httpd.pid");
open $fh, '<', "$dir/error_log";
my $log = do { local $/; <$fh> };
ok t_cmp($log, qr/CGIPLUS1252: exec used but not allowed in \S+noexec\/exec-cmd\.shtml/,
         'IncludesNOEXEC: logged with its reason');
ok t_cmp($log, qr/CGIPLUS1083: attempt to include NPH CGI script: \S+nph-x\.pl/,
         'an nph script is not included: logged');
# exec-bad.shtml's mistakes, each said as mod_include says them for mod_cgid
ok t_cmp($log, qr/CGIPLUS1253: invalid CGI ref "env\.pl\?x=1" in \S+exec-bad\.shtml/,
         'exec cgi with a query: logged (1253)');
ok t_cmp($log, qr/CGIPLUS1253: invalid CGI ref "no-such\.pl" in \S+exec-bad\.shtml/,
         'exec cgi naming no script file: logged (1253)');
ok t_cmp($log, qr/CGIPLUS1254: unknown parameter "foo" to tag exec in \S+exec-bad\.shtml/,
         'an unknown parameter: logged (1254)');
ok t_cmp($log, qr/CGIPLUS1251: missing argument for exec element in \S+exec-bad\.shtml/,
         'an exec element without an argument: logged (1251)');
