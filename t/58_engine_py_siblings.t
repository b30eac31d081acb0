# The Python engine: the modules a script imports from its own directory
# (sys.path[0]) or from a directory it puts on sys.path are that script
# directory's, as each CGI process finds its own: two scripts in two
# directories, each with a sibhelp.py, get each their own (the engine gave
# both the one of whichever ran first), and a script beside neither finds
# none; nor does one of the standard library's hide a script's own module
# of that name, or the other way round, nor a namespace package leak; a
# changed package is read again with its submodule; a helper that imports
# __main__ reads each run's. Each
# directory's stay loaded between its runs (the gain). Each
# answer as mod_cgid's (but for the run count and the pid), on one engine.
use strict;
use warnings FATAL => 'all';
use Apache::Test;
use Apache::TestUtil;
use lib 't/htdocs/apps';
use AppTest qw(curl url);

plan tests => 28;

sub answer {
    my ($path) = @_;
    my ($code, $h, $body) = curl(url($path));
    return "$code " . ($h->{'content-type'} // '-') . "\n$body";
}

my %pids;
my %hits;
# one request on the engine and one under mod_cgid: the same but for the
# hits/pid line, which the engine's answer keeps for the caller
sub same {
    my ($script, $name) = @_;
    my $got = answer("/epy/siblings/$script");
    my $want = answer("/cgidpy/siblings/$script");
    my ($hits, $pid) = $got =~ s/^hits=(\d+) pid=(\d+)\n//m ? ($1, $2) : (0, 0);
    $want =~ s/^hits=\d+ pid=\d+\n//m;
    $pids{$pid}++ if $pid;
    ok t_cmp($got, $want, "$name: as under mod_cgid");
    return $hits;
}

my @runs;
push @runs, same('one/who.py', 'one/who.py imports the sibhelp beside it');
push @runs, same('two/who.py', "two/who.py next: its own sibhelp, not one's");
push @runs, same('one/who.py', "one/who.py again: one's");
push @runs, same('two/who.py', "two/who.py again: two's");
ok t_cmp(answer('/epy/siblings/two/who.py'), qr/^who=two\nfile=sibhelp\.py\npath0=two$/m,
         "two's own module, found through its sys.path[0]");
push @runs, 0 + (answer('/epy/siblings/one/who.py') =~ /^hits=(\d+)/m)[0];
ok t_cmp("@runs", '1 1 2 2 3', "each directory's module stays loaded between its runs, its own count");
same('top.py', 'a script beside neither finds none');
same('one/addlib.py', 'a module from a directory one/addlib.py puts on sys.path');
same('two/addlib.py', "two/addlib.py's from its own, not one's");
same('one/addlib.py', "one's again");
ok t_cmp(answer('/epy/siblings/one/addlib.py'), qr/^where=libone$/m, "so one/addlib.py gets libone's");
same('one/who.py', 'and one/who.py its sibhelp still');
# a module beside the script that hides one of the standard library's,
# which another script imports in between
same('two/shadow.py', "two/shadow.py: the colorsys beside it");
same('stdlib.py', "stdlib.py: the standard library's colorsys");
same('two/shadow.py', "two/shadow.py again: its own");
same('stdlib.py', "stdlib.py again: the standard library's");
ok t_cmp(answer('/epy/siblings/two/shadow.py'), qr/^colorsys=two's colorsys$/m, "two/shadow.py's own colorsys");
# a namespace package (a directory without __init__.py) beside one/usens.py
same('one/usens.py', 'a namespace package beside the script');
same('topns.py', 'a script beside none finds none');
same('one/usens.py', 'one/usens.py again');
# a helper that imports __main__ as it loads and reads the script's
# globals from it: each run's, as in a process (it held the first run's
# __main__, emptied at its end)
same('one/usemain.py?first', 'a helper reading __main__: the first run');
same('one/usemain.py?second', "the second run: its own __main__");
same('two/who.py', 'another directory in between');
same('one/usemain.py?third', "the third run: its own __main__");
# a package beside the script, its __init__.py changed: read again with
# its submodule (a submodule left loaded is not the new package's attribute)
my $pkg = 't/htdocs/engine/python/siblings/one/sibpkg';
sub pkg_version {
    open my $fh, '>', "$pkg/__init__.py.new" or die "$pkg: $!";
    print $fh "VERSION = 'package version $_[0]'\n";
    close $fh;
    rename "$pkg/__init__.py.new", "$pkg/__init__.py" or die "$pkg: $!";
}
mkdir $pkg;
open my $fh, '>', "$pkg/sub.py" or die "$pkg: $!";
print $fh "WHO = 'its submodule'\n";
close $fh;
pkg_version(1);
same('one/pkg.py', 'a package beside the script and its submodule');
pkg_version(2);
same('one/pkg.py', 'its __init__.py changed: the new package, with its submodule');
ok t_cmp(answer('/epy/siblings/one/pkg.py'), qr/^package version 2, its submodule$/m,
         'and again');
unlink glob("$pkg/*.py"), glob("$pkg/__pycache__/*");
rmdir "$pkg/__pycache__";
rmdir $pkg;
ok t_cmp(scalar(keys %pids), 1, 'one engine served every run');
