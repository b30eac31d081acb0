#!/usr/bin/perl
# Reports what a worker got: user, group, session, process group, open
# descriptors, environment names and resource limits; with ?peek=PID, what
# it can read of process PID; with ?signal=PID,..., whether it may signal
# them; with ?daemon, a process it leaves behind; with ?move, whether it can
# link and rename a file into another directory (t/47_security.t).
use strict;
use warnings;
use FindBin;
use File::Temp ();
use lib "$FindBin::Bin/../../../lib/perl";
use CGIplus;
use POSIX ();

my %base = %ENV; # the worker's own environment, before any request
$| = 1;
while (CGIplus::accept()) {
    opendir my $d, '/proc/self/fd' or die "fd: $!";
    # the directory handle itself is open while listing it: leave it out
    my @fds = sort { $a <=> $b }
              grep { /^\d+$/ && (readlink("/proc/self/fd/$_") // '') !~ m{^/proc/} } readdir $d;
    closedir $d;
    my %limits;
    if (open my $l, '<', '/proc/self/limits') {
        while (<$l>) {
            $limits{cpu} = $1 if /^Max cpu time\s+(\S+)/;
            $limits{as} = $1 if /^Max address space\s+(\S+)/;
            $limits{nofile} = $1 if /^Max open files\s+(\S+)/;
            $limits{nproc} = $1 if /^Max processes\s+(\S+)/;
        }
    }
    print "Content-Type: text/plain\n\n";
    print "uid=$< euid=$> gid=", (split ' ', $()[0], " egid=", (split ' ', $))[0], "\n";
    print "groups=$)\n";
    my ($pgrp, $sid) = (-1, -1);
    if (open my $st, '<', '/proc/self/stat') {
        my $line = <$st>;
        ($pgrp, $sid) = (split ' ', substr($line, rindex($line, ')') + 2))[2, 3];
    }
    print "pid=$$ pgid=$pgrp sid=$sid\n";
    print "fds=@fds\n";
    print "env=", join(',', sort keys %base), "\n";
    print "conf=", ($base{SECRET_CONF} // ''), "\n";
    # PATH: the worker's own, and the one the request's variables leave
    print "path=", ($base{PATH} // ''), "\n";
    print "reqpath=", ($ENV{PATH} // ''), "\n";
    print "limits=", join(',', map { "$_:" . ($limits{$_} // '?') } qw(cpu as nofile nproc)), "\n";
    # ?peek=PID: what this script can read of another process of its uid
    if (($ENV{QUERY_STRING} // '') =~ /\bpeek=(\d+)/) {
        for my $f (qw(environ mem)) {
            my ($fh, $buf);
            my $got = open($fh, '<', "/proc/$1/$f") ? 'read' : "refused ($!)";
            $got = sysread($fh, $buf, 4096) ? "read ($buf)" : 'read nothing' if $got eq 'read' && $f eq 'environ';
            $got =~ tr/\0\n/  /;
            print "peek_$f=$got\n";
        }
    }
    # ?signal=PID,...: whether it may signal each (signal 0: checked, not sent),
    # and a child of its own, which it must be able to end
    if (($ENV{QUERY_STRING} // '') =~ /\bsignal=([\d,]+)/) {
        for my $p (split /,/, $1) {
            print "signal_$p=", (kill(0, $p) ? 'may' : "refused ($!)"), "\n";
        }
        my $kid = fork // die "fork: $!";
        if (!$kid) { sleep 30; POSIX::_exit(0) }
        my $ok = kill('TERM', $kid);
        waitpid $kid, 0;
        print 'signal_own_child=', ($ok && ($? & 127) == 15 ? 'ended' : "not ended ($?)"), "\n";
    }
    # ?daemon: leaves a process of its own behind, in a session of its own
    # (a CGI program's background job, as fossil's backoffice), its pid said
    if (($ENV{QUERY_STRING} // '') =~ /\bdaemon\b/) {
        my $kid = fork // die "fork: $!";
        if (!$kid) {
            POSIX::setsid();
            POSIX::close($_) for 0 .. 63;
            sleep 60;
            POSIX::_exit(0);
        }
        print "daemon=$kid\n";
    }
    # ?limits=PID,...: whether it may set the open-files limit (to what it
    # is: harmless), the nice value, scheduling policy or I/O priority of
    # each (to the defaults), and
    # its own (pid 0) as ever
    if (($ENV{QUERY_STRING} // '') =~ /\blimits=([\d,]+)/) {
        for my $p (split /,/, $1) {
            my ($soft, $hard) = split ' ', `prlimit --pid $p --nofile --raw --noheadings -o SOFT,HARD 2>/dev/null` // '';
            my $nice = (split ' ', `ps -o ni= -p $p` // '')[0] // 0;
            my @r = (defined $hard ? 'read' : 'unread',
                     system("prlimit --pid $p --nofile=$soft:$hard 2>/dev/null") ? 'refused' : 'may',
                     system("renice $nice -p $p >/dev/null 2>&1") ? 'refused' : 'may',
                     system("chrt -o -p 0 $p >/dev/null 2>&1") ? 'refused' : 'may',
                     system("ionice -c 2 -n 4 -p $p >/dev/null 2>&1") ? 'refused' : 'may');
            print "limits_$p=@r\n";
        }
        print 'limits_own=', (system(q{sh -c 'ulimit -n 60 && nice -n 3 chrt -b 0 ionice -c 2 -n 4 true'}) ? 'refused' : 'may'), "\n";
    }
    if (($ENV{QUERY_STRING} // '') =~ /\bmove\b/) {
        my $d = File::Temp::tempdir(CLEANUP => 1);
        mkdir "$d/$_" for qw(from to);
        open my $fh, '>', "$d/from/f" or die "$d/from/f: $!";
        close $fh;
        print "move=", (link("$d/from/f", "$d/to/linked") ? 'linked' : "link refused ($!)"), ' ',
              (rename("$d/from/f", "$d/to/renamed") ? 'renamed' : "rename refused ($!)"), "\n";
        File::Temp::cleanup();
    }
    CGIplus::finish();
}
