package DataMod;
# A module that reads its __DATA__ at each call, not once as it loads (as
# pgFormatter::CGI reads its CSS): in a CGI process the first call finds it
# whole. t/58_engine_idioms.t (moddata.pl)
use strict;
use warnings;
sub styles { my $s = <DATA>; return defined $s ? $s : "(none)\n" }
1;
__DATA__
body { color: black }
