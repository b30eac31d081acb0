# CGIplusEngine and CGIplusEngineMaxRSS: every value is checked when httpd
# reads it, and a bad one stops httpd with a sentence saying why.
use strict;
use warnings FATAL => 'all';
use Apache::Test;
use Apache::TestUtil;
use File::Path qw(make_path remove_tree);
use lib 't/htdocs/pool/lib';
use PoolTest ();

plan tests => 15;

my $vars = Apache::Test::config()->{vars};
my $dir = "$vars->{t_logs}/engineconf";
remove_tree($dir);
make_path($dir);
my $perl_engine = "$vars->{top_dir}/lib/perl/cgiplus-engine-perl";
sub configtest { PoolTest::configtest($dir, @_) }

my ($rc, $out) = configtest("<Directory /srv>\n    CGIplusEngine $perl_engine\n    CGIplusEngineMaxRSS 512M\n</Directory>\n"
                            . "<Location /x>\n    CGIplusEngine none\n    CGIplusEngineMaxRSS none\n</Location>");
ok t_cmp($rc, 0, 'an engine by its path, a bound, none: accepted');
ok t_cmp($out, qr/Syntax OK/, 'Syntax OK');

for my $c (['ruby', qr/CGIplusEngine takes perl, python, php, the absolute path of an engine program, or none; not 'ruby'/],
           ['engines/perl', qr/CGIplusEngine takes perl, python, php, the absolute path/],
           ['/no/such/engine', qr{CGIplusEngine /no/such/engine: '/no/such/engine' is not an executable file}],
           ["$vars->{top_dir}/README.md", qr{is not an executable file}]) {
    ($rc, $out) = configtest("<Directory /srv>\n    CGIplusEngine $c->[0]\n</Directory>");
    ok t_cmp($rc, 1, "CGIplusEngine $c->[0]: refused");
    ok t_cmp($out, $c->[1], "CGIplusEngine $c->[0]: says why");
}

# The built-in names resolve to where make install puts the engines: found
# there, or refused naming the package to install.
for my $name (qw(perl python)) {
    ($rc, $out) = configtest("<Directory /srv>\n    CGIplusEngine $name\n</Directory>");
    my ($path) = $out =~ /CGIplusEngine $name: '([^']+)' is not an executable file/;
    ok t_cmp($rc == 0 ? 'installed' : ($path && !-x $path && $out =~ /install the package (libcgiplus-perl|python3-cgiplus)/ ? 'names the package' : $out),
             qr/^(installed|names the package)$/, "CGIplusEngine $name: its installed engine, or a sentence naming the package");
}

for my $v ('10', 'lots', '0') {
    ($rc, $out) = configtest("CGIplusEngineMaxRSS $v");
    ok t_cmp("$rc " . ($out =~ /CGIplusEngineMaxRSS takes a size of at least 1M \(K, M or G allowed\) or 'none', not '\Q$v\E'/ ? 'why' : $out),
             '1 why', "CGIplusEngineMaxRSS $v: refused, saying why");
}
