package PrivateHttpd;
# A private httpd for tests that need a configuration of their own (only
# mod_cgiplus loaded, a copied Debian layout): started with -k start on a
# 127.0.0.1 port, stopped by its own pid file. Only what it starts is
# stopped.
use strict;
use warnings;
use Apache::Test ();
use File::Path qw(make_path remove_tree);
use POSIX ();
use IO::Socket::INET;
use Time::HiRes qw(sleep time);
use Exporter 'import';
our @EXPORT_OK = qw(private_conf private_start private_stop private_check private_fpm libexec
                    private_log private_wait_log private_get private_start_get private_finish
                    resp_code resp_pid resp_body pid_in private_dir);

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

# The pid files of the httpds private_dir made a place for: stopped at exit
# (one already stopped has none: no wait for it).
my @started;
END { -e $_ and private_stop($_) for @started }
# The php-fpms private_fpm started, stopped at exit if a test died before
# it stopped them: only a child not reaped yet (waitpid 0), never a pid
# that may be another process's by now.
my @fpms;
END {
    local $?;
    for my $pid (@fpms) {
        next if waitpid($pid, POSIX::WNOHANG()) != 0;
        kill 'TERM', $pid;
        waitpid $pid, 0;
    }
}

# A fresh directory t/logs/$name for a private httpd: one a failed run left
# running there is stopped first, the one started there at the test's end.
sub private_dir {
    my ($name) = @_;
    my $dir = "$vars->{t_logs}/$name";
    private_stop("$dir/httpd.pid") if -e "$dir/httpd.pid";
    push @started, "$dir/httpd.pid";
    fresh_dir($dir);
    return $dir;
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

# Starts httpd on $conf_file, @args its options; an array first in @args
# is a command httpd is started through (unshare: a mount namespace of
# its own). Returns 1 once $port answers.
sub private_start {
    my ($conf_file, $port, @args) = @_;
    my @through = ref $args[0] eq 'ARRAY' ? @{ shift @args } : ();
    system(@through, $vars->{httpd}, @args, '-f', $conf_file, '-k', 'start');
    for (1 .. 100) {
        return 1 if IO::Socket::INET->new(PeerAddr => "127.0.0.1:$port", Timeout => 1);
        sleep 0.1;
    }
    return 0;
}

# A private php-fpm ($bin) of $children static children, as the test's
# httpd user, listening on the UNIX socket $sock, its files in $dir:
# started in the foreground as our child; returns its pid (stop it with
# TERM and waitpid) once the socket is there. $pool: more lines for its
# pool; $name: its files' name in $dir (php-fpm).
sub private_fpm {
    my ($bin, $dir, $sock, $children, $pool, $name) = @_;
    $name //= 'php-fpm';
    $pool //= '';
    open my $fh, '>', "$dir/$name.conf" or die "$dir/$name.conf: $!";
    print $fh <<"CONF";
[global]
pid = $dir/$name.pid
error_log = $dir/$name.log
daemonize = no
[app]
user = $vars->{user}
group = $vars->{group}
listen = $sock
listen.owner = $vars->{user}
listen.mode = 0600
pm = static
pm.max_children = $children
$pool
CONF
    close $fh;
    my $pid = fork // die "fork: $!";
    push @fpms, $pid if $pid;
    if (!$pid) {
        open STDOUT, '>', "$dir/$name.out";
        open STDERR, '>&', \*STDOUT;
        exec $bin, '-F', '-y', "$dir/$name.conf", '-p', $dir;
        exit 127;
    }
    for (1 .. 100) { last if -S $sock; sleep 0.1 }
    return $pid;
}

# The pid a pid file names (0: none yet).
sub pid_in {
    my ($file) = @_;
    open my $fh, '<', $file or return 0;
    my $p = <$fh> // '';
    return $p =~ /^(\d+)/ ? $1 : 0;
}

# The private httpd's error log in $dir ('' before there is one).
sub private_log {
    my ($dir) = @_;
    open my $fh, '<', "$dir/error_log" or return '';
    local $/;
    return <$fh> // '';
}

# Waits, $secs (5) at most, until that log matches $re; whether it does.
sub private_wait_log {
    my ($dir, $re, $secs) = @_;
    my $t = time + ($secs // 5);
    sleep 0.1 while time < $t && private_log($dir) !~ $re;
    return private_log($dir) =~ $re ? 1 : 0;
}

# One GET to 127.0.0.1:$port on a connection of its own (connect timeout
# $timeout, 10 s); the socket for private_finish (undef: no connection).
sub private_start_get {
    my ($port, $path, $timeout) = @_;
    my $s = IO::Socket::INET->new(PeerAddr => "127.0.0.1:$port", Timeout => $timeout // 10)
        or return;
    print $s "GET $path HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n";
    return $s;
}

# The whole response on $s, head and body, as it came ('' without one).
sub private_finish {
    my ($s) = @_;
    return '' unless $s;
    local $/;
    return <$s> // '';
}

sub private_get { return private_finish(private_start_get(@_)) }

# A raw response's status code, and its X-Pid header (the test scripts
# name their worker so); 0 where there is none.
sub resp_code { $_[0] =~ m{^HTTP/1\.1 (\d+)} ? $1 : 0 }
sub resp_pid { $_[0] =~ /^X-Pid: (\d+)/m ? $1 : 0 }
# A raw response's body, unchunked.
sub resp_body {
    my ($head, $body) = $_[0] =~ /\A(.*?\r\n)\r\n(.*)\z/s;
    $body //= '';
    return $body unless ($head // '') =~ /^Transfer-Encoding: chunked/mi;
    my $plain = '';
    while ($body =~ s/\A([0-9a-fA-F]+)\r\n//) {
        my $len = hex $1;
        last unless $len;
        $plain .= substr $body, 0, $len, '';
        $body =~ s/\A\r\n//;
    }
    return $plain;
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
    my $pid = pid_in($pidfile) or return;
    kill 'TERM', $pid;
    for (1 .. 100) {
        last unless kill 0, $pid;
        sleep 0.1;
    }
}

push @EXPORT_OK, 'fresh_dir';
1;
