# info2www (Debian's package: a Perl CGI script run with -T, reading GNU
# Info files, with a dbm cache of where nodes are), unmodified, through the
# Perl engine and through CGIplusCompat (plain CGI), each page twice: the
# directory, files and nodes named as `(file)node`, by `file=`/`node=` and
# `query=`, as ISINDEX words (@ARGV), a POST, a file and a node that do not
# exist, a path outside the Info directories refused: each the same status,
# type and body as through mod_cgid (ports aside), the engine's from one
# process.
use strict;
use warnings FATAL => 'all';
use Apache::Test;
use Apache::TestUtil;
use lib 't/lib', 't/htdocs/apps';
use AppTest qw(curl);
use SideBySide qw(same_pages engine_served_all);

plan skip_all => 'info2www is not installed (apt-get install info2www)' unless -f '/usr/lib/cgi-bin/info2www';

my @pages = ([''], ['?(coreutils)'], ['?(coreutils)ls%20invocation'], ['?file=grep&node=Usage'],
             ['?query=(find)Top'], ['?gzip'], ['?%28gzip%29Invoking%20gzip'], ['?(nosuch)Top'],
             ['?(coreutils)nosuchnode'], ['?(/etc/passwd)Top'],
             ['', '--data', 'file=coreutils&node=cat%20invocation']);
@pages = (@pages, @pages);
plan tests => 2 * 3 * @pages + 1;

my $cfg = Apache::Test::config();
my %page = map { (join(' ', @$_) => $_) } @pages;
for my $ours (qw(cgiplus_info2www_engine cgiplus_info2www_compat)) {
    same_pages([map { join ' ', @$_ } @pages], sub {
        my ($side, $key) = @_;
        my ($q, @args) = @{ $page{$key} };
        my $port = $cfg->port($side eq 'ref' ? 'cgiplus_info2www_cgid' : $ours);
        my ($code, $h, $body) = curl(@args, "http://127.0.0.1:$port/i/info2www$q");
        $body =~ s/127\.0\.0\.1:$port/HOST/g;
        return ($code, $h->{'content-type'} // '', $body);
    });
}
engine_served_all($cfg->port('cgiplus_info2www_engine'), 'info2www', scalar @pages,
                  'one engine process served every info2www request');
