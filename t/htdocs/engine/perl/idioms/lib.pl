# A library of subs without a package, required by req_a.pl and req_b.pl.
sub helper { return "helper(@_)" }
1;
