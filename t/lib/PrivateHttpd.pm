package PrivateHttpd;
# A private httpd for tests that need a configuration of their own (only
# mod_cgiplus loaded, a copied Debian layout): started with -k start on a
# 127.0.0.1 port, stopped by its own pid file. Only what it starts is
# stopped.
use strict;
use warnings;
use Apache::Test ();
use File::Path qw(make_path remove_tree);
use IO::Socket::INET;
use Time::HiRes qw(sleep);
use Exporter 'import';
our @EXPORT_OK = qw(private_conf private_start private_stop private_check private_fpm libexec);

my $vars = Apache::Test::config()->{vars};

sub libexec { chomp(my $d = `$vars->{apxs} -q LIBEXECDIR`); return $d }

# A minimal httpd.conf in $dir: ServerRoot, logs, runtime dir, the event
# MPM, the listed modules (names as in mod_NAME.so), mod_cgiplus and its
# runner from the build tree, then $extra.
sub private_conf {
    my ($dir, $port, $mods, $extra) = @_;
    my $lib = libexec();
    my $top = $vars->{top_dir};
    my $load = join '', map { "LoadModule ${_}_module $lib/mod_$_.so\n" } @$mods;
    return <<"CONF";
ServerRoot $dir
PidFile $dir/httpd.pid
ErrorLog $dir/error_log
LogLevel info
Listen 127.0.0.1:$port
ServerName 127.0.0.1
DefaultRuntimeDir $dir
LoadModule mpm_event_module $lib/mod_mpm_event.so
LoadModule authz_core_module $lib/mod_authz_core.so
$load
LoadModule cgiplus_module $top/mod_cgiplus/.libs/mod_cgiplus.so
CGIplusRunnerPath $top/runner/cgiplus-runner
User $vars->{user}
Group $vars->{group}
$extra
CONF
}

sub fresh_dir {
    my ($dir) = @_;
    remove_tree($dir);
    make_path($dir);
    chmod 0755, $dir;
}

# httpd -t: (exit code, output).
sub private_check {
    my ($conf_file, @args) = @_;
    my $out = `'$vars->{httpd}' @args -t -f '$conf_file' 2>&1`;
    return ($? >> 8, $out);
}

# Starts httpd on $conf_file; returns 1 once $port answers.
sub private_start {
    my ($conf_file, $port, @args) = @_;
    system($vars->{httpd}, @args, '-f', $conf_file, '-k', 'start');
    for (1 .. 100) {
        return 1 if IO::Socket::INET->new(PeerAddr => "127.0.0.1:$port", Timeout => 1);
        sleep 0.1;
    }
    return 0;
}

# A private php-fpm ($bin) of $children static children, as the test's
# httpd user, listening on the UNIX socket $sock, its files in $dir:
# started in the foreground as our child; returns its pid (stop it with
# TERM and waitpid) once the socket is there.
sub private_fpm {
    my ($bin, $dir, $sock, $children) = @_;
    open my $fh, '>', "$dir/php-fpm.conf" or die "$dir/php-fpm.conf: $!";
    print $fh <<"CONF";
[global]
pid = $dir/php-fpm.pid
error_log = $dir/php-fpm.log
daemonize = no
[app]
user = $vars->{user}
group = $vars->{group}
listen = $sock
listen.owner = $vars->{user}
listen.mode = 0600
pm = static
pm.max_children = $children
CONF
    close $fh;
    my $pid = fork // die "fork: $!";
    if (!$pid) {
        open STDOUT, '>', "$dir/php-fpm.out";
        open STDERR, '>&', \*STDOUT;
        exec $bin, '-F', '-y', "$dir/php-fpm.conf", '-p', $dir;
        exit 127;
    }
    for (1 .. 100) { last if -S $sock; sleep 0.1 }
    return $pid;
}

# Stops the httpd whose pid file is given (SIGTERM to that pid only) and
# waits for it to go.
sub private_stop {
    my ($pidfile) = @_;
    # The port answers before httpd writes its pid file: wait for it.
    for (1 .. 50) {
        last if -s $pidfile;
        sleep 0.1;
    }
    open my $fh, '<', $pidfile or return;
    my $pid = <$fh>;
    close $fh;
    return unless $pid && $pid =~ /^(\d+)/;
    $pid = $1;
    kill 'TERM', $pid;
    for (1 .. 100) {
        last unless kill 0, $pid;
        sleep 0.1;
    }
}

push @EXPORT_OK, 'fresh_dir';
1;
