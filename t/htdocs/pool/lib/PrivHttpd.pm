package PrivHttpd;
# Private httpd instances for tests that need their own server configuration
# (a standalone runner, several nodes behind a balancer): each in its own
# directory under t/logs, on 127.0.0.1, with the module of the build tree.
# Only the processes started here are stopped, by their pid files.
use strict;
use warnings;
use Exporter qw(import);
use File::Path qw(make_path remove_tree);
use IO::Socket::INET;
use Time::HiRes qw(sleep);
use Apache::Test ();

our @EXPORT_OK = qw(httpd_start httpd_stop httpd_graceful httpd_log ASAN_MEASURE);

# ASAN_OPTIONS for a private httpd whose runner's RSS a test bounds
# (local $ENV{ASAN_OPTIONS} = ASAN_MEASURE around httpd_start; without
# ASan nothing reads it). Under ASan the runner's RSS also counted what it
# had freed: freed chunks wait in a quarantine (256 MB by default) and
# ASan's allocator keeps free small chunks unless told to give them back,
# so t/56_queue_memory and t/56_runner_flood failed in the sanitizer run
# while the runner held no more than in the plain build. Without the
# quarantine, and memory given back as soon as it may be, RSS counts what
# the runner holds (ASan's shadow and redzones only add to it). The price:
# in these runners a use after free goes unseen once the memory is reused.
use constant ASAN_MEASURE =>
    'quarantine_size_mb=0:thread_local_quarantine_size_kb=0:allocator_release_to_os_interval_ms=0';

my $vars = Apache::Test::config()->{vars};
# A command httpd is started under (local @PrivHttpd::WRAP = ('prlimit',
# '--nofile=4096:4096')): limits for httpd and the runner it starts.
our @WRAP;
my @started;    # stopped at exit if a test ends early
chomp(my $libexec = `$vars->{apxs} -q LIBEXECDIR`);

# httpd_start(NAME, PORT, CONF, [MODULES]): writes DIR/httpd.conf (the
# common part, then CONF) and starts httpd. Returns DIR; dies if it does
# not listen within 10 s.
sub httpd_start {
    my ($name, $port, $conf, @mods) = @_;
    my $dir = "$vars->{t_logs}/$name";
    remove_tree($dir);
    make_path($dir);
    chmod 0755, $dir;
    my $load = join '', map { "LoadModule ${_}_module $libexec/mod_$_.so\n" }
        'mpm_event', 'authz_core', 'alias', @mods;
    open my $fh, '>', "$dir/httpd.conf" or die "$dir/httpd.conf: $!";
    print $fh <<"CONF", $conf;
ServerRoot $dir
PidFile $dir/httpd.pid
ErrorLog $dir/error_log
LogLevel warn cgiplus:info
Listen 127.0.0.1:$port
ServerName 127.0.0.1
${load}LoadModule cgiplus_module $vars->{top_dir}/mod_cgiplus/.libs/mod_cgiplus.so
DefaultRuntimeDir $dir
CGIplusRunnerPath $vars->{top_dir}/runner/cgiplus-runner
User $vars->{user}
Group $vars->{group}
CONF
    close $fh;
    system(@WRAP, $vars->{httpd}, '-f', "$dir/httpd.conf", '-k', 'start') == 0
        or die "$name: httpd failed: " . httpd_log($dir);
    push @started, $dir;
    for (1 .. 100) {
        return $dir if IO::Socket::INET->new(PeerAddr => "127.0.0.1:$port", Timeout => 1);
        sleep 0.1;
    }
    die "$name: httpd does not listen on $port\n";
}

sub _pid { my $d = shift; open my $fh, '<', "$d/httpd.pid" or return ''; my $p = <$fh> // ''; chomp $p; $p }

sub httpd_graceful { system($vars->{httpd}, '-f', "$_[0]/httpd.conf", '-k', 'graceful') == 0 }

sub httpd_stop {
    my ($dir) = @_;
    my $pid = _pid($dir);
    return unless $pid =~ /^\d+$/ && $pid > 1;
    kill 'TERM', $pid;
    for (1 .. 100) { last unless kill 0, $pid; sleep 0.1 }
}

END { local $?; httpd_stop($_) for @started }

sub httpd_log { my $d = shift; open my $fh, '<', "$d/error_log" or return ''; local $/; <$fh> // '' }

1;
