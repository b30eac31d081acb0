#!/usr/bin/perl
# Dies at start, every time: the crash-loop test (t/43_faults.t).
exit 1;
