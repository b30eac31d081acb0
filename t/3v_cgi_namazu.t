# Namazu's search CGI (namazu2: namazu.cgi, a C program), unmodified, in
# two virtual hosts of one private httpd, one with mod_cgid, one with
# CGIplusCompat (plain CGI through the runner), as Debian installs it
# (/usr/lib/cgi-bin/namazu.cgi), searching an index mknmz builds here from
# three documents (HTML, text, a mail) with fixed dates, its namazurc named
# by NAMAZURC (SetEnv): the search form, words, phrases, prefixes, regular
# expressions, field searches, paging, the sort orders, short results,
# another language, markup in the query, an index that does not exist, one
# outside the index directory, a query string too long, HEAD. Each the same
# status, Content-Type, headers (but the date, Server and the framing) and
# body, bytes. (No POST: namazu.cgi reads only QUERY_STRING, never its
# body, and mod_cgid then answers nothing or 500 now and then:
# docs/cgi-compat.md, "An unread body".)
use strict;
use warnings FATAL => 'all';
use Apache::Test;
use Apache::TestUtil;
use lib 't/lib', 't/htdocs/apps';
use PrivateHttpd qw(private_start private_stop private_dir);
use FreePort qw(free_ports);
use AppTest qw(write_file curl);
use SideBySide qw(same_answer pool_of cgid_pair_conf);

my $cgi = '/usr/lib/cgi-bin/namazu.cgi';
# [query string, curl arguments]
my @pages = (
    [''],
    ['query=apple'],
    ['query=apple&max=1'],
    ['query=apple&max=1&whence=1'],
    ['query=apple+and+pie'],
    ['query=banana+or+cherries'],
    ['query=apple+not+banana'],
    ['query=%22apple+pie%22'],
    ['query=appl*'],
    ['query=%2Fban.*%2F'],
    ['query=%2Bsubject%3Acherry'],
    ['query=%2Bfrom%3Aann%40example.org'],
    ['query=appl*&sort=date:late'],
    ['query=appl*&sort=date:early'],
    ['query=appl*&sort=field:subject:ascending'],
    ['query=appl*&sort=field:size:descending'],
    ['query=appl*&result=short'],
    ['query=apple&lang=fr'],
    ['query=nosuchword'],
    ['query=%3Cscript%3Ealert(1)%3C%2Fscript%3E'],
    ['query=apple&idxname=nosuch'],
    ['query=apple&idxname=..%2F..%2Fetc'],
    ['query=' . ('a' x 3000)],
    ['query=apple', '-I'],
);
plan tests => 1 + 5 * @pages + 1,
    need { 'needs namazu.cgi and mknmz (Debian packages namazu2, namazu2-index-tools)'
           => -x $cgi && -x '/usr/bin/mknmz' };

my ($cport, $pport) = free_ports(2);
my %port = (ref => $cport, ours => $pport);
my $dir = private_dir('namazu');
# The documents, dated from 2023-11-14 on (the results show the dates,
# sort by them), and the index of them both sides search.
mkdir "$dir/docs";
write_file("$dir/docs/apple.html", "<html><head><title>Apple pie</title></head>\n"
           . "<body><p>An apple pie recipe with cinnamon &amp; sugar.</p></body></html>\n", 0644);
write_file("$dir/docs/banana.txt", "Banana bread notes.\nThe banana and the apple.\n", 0644);
write_file("$dir/docs/cherry.eml", "From: Ann <ann\@example.org>\nSubject: Cherry season\n"
           . "Date: Tue, 14 Nov 2023 22:13:20 +0000\n\nCherries and apples are ripe.\n", 0644);
my $t = 1700000000;
utime $t, $t, "$dir/docs/apple.html";
utime $t + 86400, $t + 86400, "$dir/docs/banana.txt";
utime $t - 86400, $t - 86400, "$dir/docs/cherry.eml";
mkdir "$dir/idx";
system("mknmz -q -O '$dir/idx' '$dir/docs' >'$dir/mknmz.log' 2>&1") == 0 or die "mknmz failed: see $dir/mknmz.log\n";
write_file("$dir/namazurc", "Index $dir/idx\nReplace $dir/docs/ http://docs.example.org/\nLang en\n", 0644);

sub vhost {
    return <<"CONF";
    SetEnv NAMAZURC $dir/namazurc
    ScriptAlias /cgi-bin/ /usr/lib/cgi-bin/
CONF
}
write_file("$dir/httpd.conf", cgid_pair_conf($dir, \%port, mods => ['env'], grant => ['/usr/lib/cgi-bin'],
                                              compat => ['/cgi-bin'], vhost => \&vhost), 0644);
ok t_cmp(private_start("$dir/httpd.conf", $cport), 1, 'httpd with mod_cgid and the drop-in, namazu.cgi in both');

# The headers that matter: all but the date, Server and the framing.
sub heads {
    my ($h) = @_;
    return join "\n", map { "$_: $h->{$_}" }
                      sort grep { !/^(date|server|content-length|transfer-encoding|connection|keep-alive)$/ } keys %$h;
}

my $n = 0;
for my $page (@pages) {
    my ($q, @args) = @$page;
    $n++;
    my %r;
    for my $side (qw(ref ours)) {
        my ($code, $h, $body) = curl(@args, "http://127.0.0.1:$port{$side}/cgi-bin/namazu.cgi" . ($q ne '' ? "?$q" : ''));
        $body = '' if grep { $_ eq '-I' } @args;
        write_file("$dir/body-$side-$n", $body, 0644);    # for a failing run's reader
        # (nothing set aside: namazu prints neither the port nor the clock)
        $r{$side} = { code => $code, type => $h->{'content-type'} // '', loc => $h->{location} // '',
                      body => $body, nbody => $body, h => $h };
    }
    my $what = (grep({ $_ eq '-I' } @args) ? 'HEAD ' : '') . '?' . (length $q > 100 ? 'query=a... (3000)' : $q);
    same_answer($what, 'mod_cgiplus', $r{ours}, $r{ref}, 'mod_cgid');
    ok t_cmp(heads($r{ours}{h}), heads($r{ref}{h}), "$what: the same other headers");
}

my $pool = pool_of("http://127.0.0.1:$pport/status", $cgi);
ok t_cmp($pool ? "$pool->{mode} " . ($pool->{counters}{requests} >= @pages ? 'all' : $pool->{counters}{requests})
               : 'no pool', 'cgi all', "the drop-in's namazu.cgi requests (" . @pages . ') ran through the runner, as plain CGI');
private_stop("$dir/httpd.pid");
