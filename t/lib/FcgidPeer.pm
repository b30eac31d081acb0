package FcgidPeer;
# The tests that run a FastCGI program under the fcgid-script drop-in and
# then under mod_fcgid itself, with the same configuration lines.
use strict;
use warnings;
use Apache::Test qw(ok);
use Apache::TestUtil qw(t_cmp);
use Exporter 'import';
use lib 't/htdocs/apps';
use PrivateHttpd qw(private_conf private_start libexec pid_in);
use AppTest qw(write_file);
our @EXPORT_OK = qw(fcgid_app_start fcgid_side_load fcgid_procs);

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

# The lines that load a side of a side-by-side test: mod_fcgid for
# 'fcgid' (its IPC directory and process table in $dir, the side's
# httpd's), else mod_cgiplus's drop-in by the mod_fcgid stand-in, with its
# status page at /status, relayed (CGIplusDirect off) for 'relayed'.
sub fcgid_side_load {
    my ($side, $dir) = @_;
    my $top = Apache::Test::config()->{vars}{top_dir};
    return "LoadModule fcgid_module " . libexec() . "/mod_fcgid.so\nFcgidIPCDir $dir/ipc\nFcgidProcessTableFile $dir/shm\n"
        if $side eq 'fcgid';
    return "LoadModule cgiplus_fcgid_module $top/mod_cgiplus/.libs/mod_cgiplus.so\n"
        . "<Location /status>\n    SetHandler cgiplus-status\n</Location>\n"
        . ($side eq 'relayed' ? "CGIplusDirect off\n" : '');
}

# The pids of mod_fcgid's processes (its process manager's children) in
# the httpd whose pid file is $pidfile, whose command line matches $re.
sub fcgid_procs {
    my ($pidfile, $re) = @_;
    my $slurp = sub { open my $fh, '<', $_[0] or return ''; local $/; <$fh> // '' };
    opendir my $d, '/proc' or return ();
    my @pids = grep { /^\d+$/ } readdir $d;
    my $children = sub { my ($pp) = @_; grep { ((split ' ', ($slurp->("/proc/$_/stat") =~ s/^.*\)//sr))[1] // 0) == $pp } @pids };
    return grep { $slurp->("/proc/$_/cmdline") =~ $re } map { $children->($_) } $children->(pid_in($pidfile));
}

1;
