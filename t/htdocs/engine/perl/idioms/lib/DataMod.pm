package DataMod;
# A module that reads its __DATA__ at each call, not once as it loads (as
# pgFormatter::CGI reads its CSS): in a CGI process the first call finds it
# whole. t/58_engine_idioms.t (moddata.pl)
use strict;
use warnings;
# (it closes the handle after reading, as some do: the engine opens it
# again; pgFormatter::CGI leaves it open, at its end)
sub styles { my $s = <DATA>; close DATA; return defined $s ? $s : "(none)\n" }
1;
__DATA__
body { color: black }
