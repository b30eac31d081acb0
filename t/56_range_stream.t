# A streamed response to a request with a Range header: the script's 200
# reaches the client whole, as under mod_cgid. httpd's byterange filter
# takes itself out of the chain at the first brigade without EOS; the
# module kept passing to the filter it had met first, so the filter ran
# again on the last brigade (data and EOS) and cut it to the Range: a
# truncated body delivered as complete (found with Django's FileResponse
# of 30 MB, 20-50 KB short, under "Range: bytes=0-99"). A persistent
# script whose last part goes out in one write with its sentinel, on the
# direct path and relayed; an engine and mod_cgid (the reference) too.
use strict;
use warnings FATAL => 'all';
use Apache::Test;
use Apache::TestUtil;
use lib 't/htdocs/apps';
use AppTest qw(write_file curl url);

plan tests => 10;

my $vars = Apache::Test::config()->{vars};
my $whole = "first part\nsecond part, written with the end\n";
write_file("$vars->{documentroot}/apps/ranged.cgp", <<"PY");
#!/usr/bin/python3
import sys, time
sys.path.insert(0, "$vars->{top_dir}/lib/python")
import cgiplus
while cgiplus.accept():
    sys.stdout.write("Content-Type: text/plain\\n\\nfirst part\\n")
    sys.stdout.flush()
    time.sleep(0.3)
    # buffered: finish() writes it and the sentinel in one write()
    sys.stdout.write("second part, written with the end\\n")
    cgiplus.finish()
PY

# the worker's first request is relayed by the runner, the next ones direct
for my $i (1 .. 3) {
    my ($code, $h, $body) = curl('-H', 'Range: bytes=0-9', url('/apps/ranged.cgp'));
    ok t_cmp($code, 200, "ranged.cgp ($i): a Range header, a streamed 200");
    ok t_cmp($body, $whole, "ranged.cgp ($i): the body whole, as the script wrote it");
}
for my $p (qw(cgidpy epy epyr epycgi)) {
    my ($code, $h, $body) = curl('-H', 'Range: bytes=0-9', url("/$p/ranged.py"));
    ok t_cmp("$code $body", "200 $whole", "/$p: a Range header, a streamed 200, whole");
}
