# The callout round trip (C, Python, Perl) and record/struct mode through the
# real httpd, runner and libraries.
use strict;
use warnings FATAL => 'all';
use Apache::Test;
use Apache::TestUtil;
use Apache::TestRequest qw(GET);

my @scripts = qw(callout_c callout.py callout.pl);
plan tests => 11 * @scripts + 4;
my $top = Apache::Test::vars('top_dir');

my $errlog = Apache::Test::vars('t_logs') . '/error_log';

for my $s (@scripts) {
    my $u = "/scripts/$s";
    my $r = GET "$u?noop";
    ok t_cmp($r->code, 200, "$s: NOOP request");
    ok t_cmp($r->content, "answer=200 NOOP\n", "$s: NOOP answered 200");

    $r = GET "$u?log";
    ok t_cmp($r->content, qr/^answer=200/, "$s: LOG answered 200");

    # MAP-PATH goes through httpd's own translation (the /c/ Alias here).
    $r = GET "$u?map";
    ok t_cmp($r->code, 200, "$s: MAP-PATH request");
    ok t_cmp($r->content, "answer=200 $top/examples/c/hello\n", "$s: MAP-PATH mapped by httpd");

    # Record mode: a CR/LF inside a value arrives as a space.
    $r = GET "$u/a%0Ab";
    my ($pid) = $r->content =~ /pid=(\d+)/;
    ok t_cmp($r->content, qr{^path=/a b pid=\d+$}m, "$s: record mode folds LF in a value");

    $r = GET "$u?struct";
    ok t_cmp($r->content, "struct=0\n", "$s: switched to struct mode");
    $r = GET "$u/a%0Ab";
    ok t_cmp($r->content, qr{^path=/a\\nb pid=\d+$}m, "$s: struct mode carries LF verbatim");
    ok t_cmp(($r->content =~ /pid=(\d+)/)[0], $pid, "$s: same worker throughout");

    $r = GET "$u?record";
    ok t_cmp($r->content, qr/^answer=200/, "$s: back to record mode");
    $r = GET "$u/a%0Ab";
    ok t_cmp($r->content, qr{^path=/a b pid=\d+$}m, "$s: record mode again");
}

# A '!' callout gets no answer, and the next callout still gets its own.
my $r = GET '/scripts/callout_c?silent';
ok t_cmp($r->content, "silent=[] answer=200 NOOP\n", 'a ! callout is not answered');

# The LOG callouts reached the httpd error log.
open my $fh, '<', $errlog or die "$errlog: $!";
my $log = do { local $/; <$fh> };
ok t_cmp(join(' ', map { $log =~ /CGIPLUS1110: \S+ says: callout-log-line-from-$_/ ? $_ : "no-$_" } qw(c python perl)),
         'c python perl', 'LOG callout lines are in the error log');

# MAP-PATH of a name an answer line cannot carry whole (issue 10, hole 10):
# refused, never cut at the line break (the cut name, examples/c/hello,
# would name another file).
$r = GET '/scripts/callout.pl?map=/c/hello%0A.sh';
ok t_cmp($r->content, "answer=500 the mapped file name holds a line break, which an answer "
         . "line cannot carry\n", 'MAP-PATH: a mapped name with a line break is refused (500)');
$r = GET '/scripts/callout.pl?map=/c/hello';
ok t_cmp($r->content, "answer=200 $top/examples/c/hello\n", 'and a plain one still maps');
