# An input filter that changes the request body (SetInputFilter Sed here;
# mod_deflate's inflating DEFLATE, mod_security's are others) makes the
# client's Content-Length wrong for what the script reads. mod_cgid gives
# the script the filtered body to its end (and the client's
# CONTENT_LENGTH). The module passed that CONTENT_LENGTH to the runner,
# which cut a longer body there or refused a shorter one as short (a 500
# and "the runner rejected the request ... as a protocol error"), unless
# the direct path took it. Now a body read whole has its length counted,
# and a longer one through such a filter is counted by the runner (as a
# chunked one): every kind gives the whole filtered body, and an exact
# CONTENT_LENGTH (a documented difference: docs/cgi-compat.md). Small
# (read whole) and large (over CGIplusBodyBuffer) bodies, each twice.
use strict;
use warnings FATAL => 'all';
use Apache::Test;
use Apache::TestUtil;
use Digest::MD5 qw(md5_hex);
use lib 't/lib', 't/htdocs/apps';
use PrivateHttpd qw(private_conf private_start private_stop private_dir libexec);
use FreePort qw(free_ports);
use AppTest qw(write_file curl);

my @kinds = (
    ['cgid',    'mod_cgid (the reference)'],
    ['plain',   'plain CGI'],
    ['compat',  'CGIplusCompat, persistent'],
    ['native',  'CGIplus script'],
    ['nativer', 'CGIplus script, relayed'],
    ['eperl',   'perl engine'],
    ['eperlr',  'perl engine, relayed'],
    ['epy',     'python engine'],
);
my %filter = (grow => [qr/a/, 'xyz', 's/a/xyz/g'], shrink => [qr/an/, 'A', 's/an/A/g']);
my %size = (small => 3000, large => 40000); # lines of 7 bytes: 21000 and 280000

plan tests => 1 + 2 * keys(%filter) * keys(%size) * @kinds * 2,
    need { 'needs mod_sed and mod_cgid' =>
               (-f libexec() . '/mod_sed.so' && -f libexec() . '/mod_cgid.so') };

my $vars = Apache::Test::config()->{vars};
my $top = $vars->{top_dir};
my $lib = libexec();
my $dir = private_dir('infilter');
my ($port) = free_ports(1);
my $d = "$dir/s";
mkdir $d;
chmod 0755, $d;

# Each prints "CONTENT_LENGTH|bytes read to the end|their md5".
write_file("$d/body.pl", <<'PL', 0755);
#!/usr/bin/perl
use Digest::MD5 qw(md5_hex);
binmode STDIN;
my $b = do { local $/; <STDIN> } // '';
print "Content-Type: text/plain\n\n", $ENV{CONTENT_LENGTH} // '-', '|', length($b), '|', md5_hex($b);
PL
write_file("$d/lib.pl", <<"PL", 0755);
#!/usr/bin/perl
use lib '$top/lib/perl';
use CGIplus;
use Digest::MD5 qw(md5_hex);
binmode STDIN;
while (CGIplus::accept()) {
    my \$b = do { local \$/; <STDIN> } // '';
    print "Content-Type: text/plain\\n\\n", \$ENV{CONTENT_LENGTH} // '-', '|', length(\$b), '|', md5_hex(\$b);
    CGIplus::finish();
}
PL
write_file("$d/body.py", <<'PY', 0755);
#!/usr/bin/python3
import hashlib, os, sys
b = sys.stdin.buffer.read()
sys.stdout.write("Content-Type: text/plain\n\n%s|%d|%s" % (os.environ.get("CONTENT_LENGTH", "-"), len(b),
                                                           hashlib.md5(b).hexdigest()))
PY

my $conf = join '', map { <<"F" } sort keys %filter;
<LocationMatch ^/$_/>
    SetInputFilter Sed
    InputSed "$filter{$_}[2]"
</LocationMatch>
F
write_file("$dir/httpd.conf", private_conf($dir, $port, [qw(alias mime cgid sed)], <<"CONF"), 0644);
TypesConfig /etc/mime.types
ScriptSock $dir/cgid.sock
AliasMatch ^/[a-z]+/[a-z]+/(.*)\$ $d/\$1
<Directory $d>
    Require all granted
    Options +ExecCGI
    CGIplusMaxWorkers 1
</Directory>
<LocationMatch ^/[a-z]+/cgid/>
    SetHandler cgi-script
</LocationMatch>
<LocationMatch ^/[a-z]+/(plain|compat|native|nativer|eperl|eperlr|epy)/>
    SetHandler cgiplus-script
</LocationMatch>
<LocationMatch ^/[a-z]+/plain/>
    CGIplusMode cgi
</LocationMatch>
<LocationMatch ^/[a-z]+/compat/>
    CGIplusMode cgiplus
    CGIplusCompat on
</LocationMatch>
<LocationMatch ^/[a-z]+/nativer?/>
    CGIplusMode cgiplus
</LocationMatch>
<LocationMatch ^/[a-z]+/eperlr?/>
    CGIplusEngine $top/lib/perl/cgiplus-engine-perl
</LocationMatch>
<LocationMatch ^/[a-z]+/epy/>
    CGIplusEngine $top/lib/python/cgiplus-engine-python
</LocationMatch>
<LocationMatch ^/[a-z]+/[a-z]+r/>
    CGIplusDirect off
</LocationMatch>
$conf
CONF
ok t_cmp(private_start("$dir/httpd.conf", $port), 1, 'a private httpd with mod_cgid, mod_sed and mod_cgiplus');

for my $f (sort keys %filter) {
    my ($re, $to) = @{ $filter{$f} };
    for my $s (sort keys %size) {
        my $sent = "banana\n" x $size{$s};
        (my $got = $sent) =~ s/$re/$to/g;
        my $file = "$dir/$f-$s.txt";
        write_file($file, $sent, 0644);
        my $want = length($got) . '|' . md5_hex($got);
        for my $k (@kinds) {
            my ($p, $what) = @$k;
            my $script = $p eq 'epy' ? 'body.py' : $p =~ /^native/ ? 'lib.pl' : 'body.pl';
            for my $n (1, 2) {
                my ($code, undef, $body) = curl('--data-binary', "\@$file",
                                                "http://127.0.0.1:$port/$f/$p/$script");
                my ($cl, $rest) = $body =~ /^([^|]*)\|(.*)$/s ? ($1, $2) : ('?', $body);
                ok t_cmp("$code $rest", "200 $want",
                         "$f, $s body, $what, #$n: the whole filtered body");
                # mod_cgid passes the client's Content-Length; ours is exact
                ok t_cmp($cl, $p eq 'cgid' ? length($sent) : length($got),
                         "$f, $s body, $what, #$n: CONTENT_LENGTH");
            }
        }
    }
}

private_stop("$dir/httpd.pid");
