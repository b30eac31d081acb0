package FcgidPeer;
# The tests that run a FastCGI program under the fcgid-script drop-in and
# then under mod_fcgid itself, with the same configuration lines.
use strict;
use warnings;
use Apache::Test qw(ok);
use Apache::TestUtil qw(t_cmp);
use Exporter 'import';
use lib 't/htdocs/apps';
use PrivateHttpd qw(private_conf private_start libexec);
use AppTest qw(write_file);
our @EXPORT_OK = qw(fcgid_app_start);

# $dir/httpd.conf on $port: $dir/app at $url as fcgid-script (ExecCGI,
# open to all), then the lines $conf; mod_fcgid loaded (its IPC in
# $dir/ipc) if $peer, else mod_cgiplus's drop-in takes the handler.
# Started, and asserted so (one test); returns the side's name for the
# test's others.
sub fcgid_app_start {
    my ($dir, $port, $peer, $url, $conf) = @_;
    my $lib = libexec();
    my $extra = ($peer ? "LoadModule fcgid_module $lib/mod_fcgid.so\nFcgidIPCDir $dir/ipc\n" : '') . <<"CONF";
LoadModule alias_module $lib/mod_alias.so
Alias $url $dir/app/
<Directory $dir/app>
    SetHandler fcgid-script
    Options +ExecCGI
    Require all granted
</Directory>
$conf
CONF
    write_file("$dir/httpd.conf", private_conf($dir, $port, [], $extra), 0644);
    my $name = $peer ? 'mod_fcgid' : 'the fcgid-script drop-in';
    ok t_cmp(private_start("$dir/httpd.conf", $port), 1, "$name: httpd starts");
    return $name;
}

1;
