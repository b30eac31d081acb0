#!/usr/bin/perl
# Subs of package main named as the engine's own functions were: the
# script's, and the engine goes on (t/58_engine_idioms.t).
package main;
sub serve { return 'serve' }
sub slots { return 'slots' }
sub same { return 'same' }
sub forget { return 'forget' }
sub logmsg { return 'logmsg' }
print "Content-Type: text/plain\n\n", join(' ', serve(), slots(), same(), forget(), logmsg()), "\n";
