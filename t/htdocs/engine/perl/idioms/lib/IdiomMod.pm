package IdiomMod;
# Found through findbin.pl's `use lib "$FindBin::Bin/lib"`.
sub hi { "hi from IdiomMod" }
1;
