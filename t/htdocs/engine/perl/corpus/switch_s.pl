#!/usr/bin/perl -s
# -s: an ISINDEX word "-debug" (in @ARGV) sets $debug and leaves @ARGV.
print "Content-Type: text/plain\n\ndebug=", ($debug // 'undef'), " argv=[@ARGV]\n";
