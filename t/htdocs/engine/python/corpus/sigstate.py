#!/usr/bin/python3
# Signal state a script changes for itself: blocked signals, the virtual
# and profiling timers (their signals' default action ends a process), a
# wakeup descriptor. A new process starts with none.
import os, signal
print("Content-Type: text/plain\n")
print("blocked %s" % sorted(int(s) for s in signal.pthread_sigmask(signal.SIG_BLOCK, [])))
print("virtual %s prof %s" % (signal.getitimer(signal.ITIMER_VIRTUAL)[0] > 0, signal.getitimer(signal.ITIMER_PROF)[0] > 0))
print("wakeup fd set %s" % (signal.set_wakeup_fd(-1) != -1))
signal.pthread_sigmask(signal.SIG_BLOCK, [signal.SIGUSR2])
signal.setitimer(signal.ITIMER_VIRTUAL, 3600)
signal.setitimer(signal.ITIMER_PROF, 3600)
r, w = os.pipe()
os.set_blocking(w, False)
signal.set_wakeup_fd(w)
