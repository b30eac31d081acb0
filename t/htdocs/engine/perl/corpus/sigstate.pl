#!/usr/bin/perl
# Signal state a script changes for itself and leaves: signals blocked
# (POSIX::sigprocmask), the virtual and profiling timers (their signals'
# default action ends a process). A new process starts with none.
use POSIX ();
use Time::HiRes ();
print "Content-Type: text/plain\n\n";
open my $fh, '<', '/proc/self/status' or die "status: $!";
my ($blk) = map { /\ASigBlk:\s*([0-9a-f]+)/ ? $1 : () } <$fh>;
print "blocked ", ($blk // '?') =~ /\A0*\z/ ? 'none' : $blk, "\n";
print "virtual ", ((Time::HiRes::getitimer(Time::HiRes::ITIMER_VIRTUAL()))[0] > 0 ? 'set' : 'none'),
      " prof ", ((Time::HiRes::getitimer(Time::HiRes::ITIMER_PROF()))[0] > 0 ? 'set' : 'none'), "\n";
POSIX::sigprocmask(POSIX::SIG_BLOCK(), POSIX::SigSet->new(POSIX::SIGUSR2()));
Time::HiRes::setitimer(Time::HiRes::ITIMER_VIRTUAL(), 3600);
Time::HiRes::setitimer(Time::HiRes::ITIMER_PROF(), 3600);
