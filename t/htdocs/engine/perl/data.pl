#!/usr/bin/perl
# The DATA handle reads what follows __END__ (t/58_engine_perl.t).
print "Content-Type: text/plain\n\n";
print while <DATA>;
__END__
line one after END
line two after END
