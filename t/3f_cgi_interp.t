# A script that cannot be executed for a reason that stays until someone
# fixes it (issue 25, point 4): its #! interpreter does not exist, its #!
# line ends in a CR (a file saved with Windows line ends), or it is no
# program at all (no #! line). mod_cgid answers 500; so does mod_cgiplus in
# every scope, persistent or plain, native or CGIplusCompat, also while the
# crash-loop backoff holds new workers back, and never 503 with
# Retry-After (which says: an outage, come back later). The logs name the
# interpreter, and the CR when there is one: the runner's line (2012) and
# the request's own (1261).
use strict;
use warnings FATAL => 'all';
use Apache::Test;
use Apache::TestUtil qw(t_cmp);
use Apache::TestRequest ();
use File::Path qw(make_path);
use lib 't/lib';
use RawHTTP qw(raw_request);

my @scopes = qw(interp-cgid interp-plus interp-cgi interp-compat interp-compat-plus);
my %scripts = (
    'missing.pl' => "#!/usr/bin/cgiplus-no-such-perl\nprint \"Content-Type: text/plain\\n\\nhi\\n\";\n",
    'crlf.pl'    => "#!/usr/bin/perl\r\nprint \"Content-Type: text/plain\\r\\n\\r\\nhi\\r\\n\";\r\n",
    'crlfenv.py' => "#!/usr/bin/env python3\r\nprint('Content-Type: text/plain')\r\nprint()\r\nprint('hi')\r\n",
    'noexec.sh'  => "echo 'Content-Type: text/plain'\necho\necho hi\n",
    'good.pl'    => "#!/usr/bin/perl\nprint \"Content-Type: text/plain\\n\\nhi\\n\";\n",
);
my @bad = qw(missing.pl crlf.pl crlfenv.py noexec.sh);
plan tests => @scopes * (1 + 2 * @bad) + 2 + 8;

my $vars = Apache::Test::config()->{vars};
my $dir = "$vars->{t_logs}/interp";
make_path($dir);
chmod 0755, $dir;
for my $name (keys %scripts) {
    open my $fh, '>', "$dir/$name" or die "$dir/$name: $!";
    print $fh $scripts{$name};
    close $fh;
    chmod 0755, "$dir/$name";
}
my $hp = Apache::TestRequest::hostport();
my $errlog = "$vars->{t_logs}/error_log";
sub log_text { open my $fh, '<', $errlog or return ''; local $/; return <$fh> // '' }
sub hdr {
    my ($r, $name) = @_;
    my @v = map { $_->[1] } grep { lc $_->[0] eq lc $name } @{ $r->{headers} };
    return @v ? $v[0] : undef;
}

for my $scope (@scopes) {
    my $g = raw_request($hp, GET => "/$scope/good.pl");
    ok t_cmp("$g->{code} $g->{body}", "200 hi\n", "$scope: a good script runs");
    for my $s (@bad) {
        # Five in a row: a persistent pool's crash-loop backoff starts after
        # the second failed start; its answers must say the same.
        my @r = map { raw_request($hp, GET => "/$scope/$s?n=$_") } 1 .. 5;
        ok t_cmp(join(' ', map { $_->{code} } @r), '500 500 500 500 500', "$scope/$s: 500, five times");
        ok t_cmp(join(' ', map { hdr($_, 'Retry-After') // '-' } @r), '- - - - -',
                 "$scope/$s: no Retry-After");
    }
}

# A request in the backoff was answered without a new start: the pool's
# starts stayed few.
my $text = log_text();
my $starts = () = $text =~ /CGIPLUS2012: cannot start \S+\/interp\/missing\.pl: exec/g;
ok t_cmp($starts < 4 * 5 ? 1 : $starts, 1, "the backoff held starts back ($starts exec failures for 20 requests)");
ok t_cmp($text =~ /CGIPLUS2066: \S+\/interp\/missing\.pl: \d+ workers in a row/ ? 1 : 0, 1,
         'the backoff did start (2066)');

# The logs say what is wrong.
ok t_cmp($text, qr{CGIPLUS2012: cannot start \S+/interp/missing\.pl: exec: its interpreter '/usr/bin/cgiplus-no-such-perl' \(named on its #! line\) does not exist},
         "the runner's line names the missing interpreter");
ok t_cmp($text, qr{CGIPLUS1261: cannot run \S+/interp/missing\.pl: its interpreter '/usr/bin/cgiplus-no-such-perl' \(named on its #! line\) does not exist; answering 500},
         "and the request's line too");
ok t_cmp($text, qr{CGIPLUS2012: cannot start \S+/interp/crlf\.pl: exec: its #! line ends in a carriage return \(Windows line ends\): the interpreter it names is '/usr/bin/perl\^M', CR included, which does not exist; save the file with Unix line ends \(dos2unix\)},
         "the runner's line names the CR");
ok t_cmp($text, qr{CGIPLUS1261: cannot run \S+/interp/crlf\.pl: its #! line ends in a carriage return .*'/usr/bin/perl\^M'},
         "and the request's line too");
ok t_cmp($text, qr{CGIPLUS2651: \S+/interp/crlfenv\.py \(pid \d+\) exited with status 127 before any output: its #! line ends in a carriage return \(Windows line ends\): its interpreter '/usr/bin/env' is given 'python3\^M', CR included, and finds nothing by that name},
         "#!/usr/bin/env python3 and a CR: the runner's line says env gets python3 with the CR");
ok t_cmp($text, qr{CGIPLUS1261: cannot run \S+/interp/crlfenv\.py: its #! line ends in a carriage return .*'python3\^M'},
         "and the request's line too");
ok t_cmp($text, qr{CGIPLUS1261: cannot run \S+/interp/noexec\.sh: it is neither a program this system runs nor a script with a #! line},
         'a file with no #! line: said so');
ok t_cmp($text =~ /CGIPLUS106[29]: [^\n]*interp\// ? 1 : 0, 0, 'no line calls any of it an outage (1062, 1069)');
