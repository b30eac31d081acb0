# A process a script forks under an engine gets no descriptor of the
# engine's own. Before, the Perl engine's private copies of its stdout,
# stderr and stdin (and the request channel, descriptor 3) were inherited
# by a plain fork: a child that closed STDIN, STDOUT and STDERR (a daemon,
# so the engine does not wait for it) and later wrote to every descriptor
# it had wrote into the response the engine sent then, another client's:
# its line came before that script's header (500, "malformed header line").
# The Python engine had the same copies. Now the child of every fork a
# script makes closes them; its own 0-2 stay. Compared with mod_cgid (the
# child has nothing but what it closed). Both engines, direct and relayed.
use strict;
use warnings FATAL => 'all';
use Apache::Test;
use Apache::TestUtil;
use lib 't/lib', 't/htdocs/apps';
use MainLog qw(log_offset log_since);
use AppTest qw(curl url);

my $vars = Apache::Test::config()->{vars};
my $flag = "$vars->{t_logs}/engine_forkfds_flag";
for my $f (qw(engine_forkfds_flag engine_forkfds_go)) {
    my $p = "$vars->{t_logs}/$f";
    open my $fh, '>', $p or die "$p: $!";
    close $fh;
    chmod 0666, $p;
}

# [ name, the engine's URL, mod_cgid's ]
# (engines of their own: t/conf/extra_libs.conf.in says why)
my @cases = (['perl', '/eperlfork/forkfds.pl', '/cgidperl/forkfds.pl'],
             ['perl relayed', '/eperlforkr/forkfds.pl', '/cgidperl/forkfds.pl'],
             ['python', '/epyfork/forkfds.py', '/cgidpy/forkfds.py'],
             ['python relayed', '/epyforkr/forkfds.py', '/cgidpy/forkfds.py']);
plan tests => 5 * @cases;

sub slurp {
    open my $fh, '<', $_[0] or return '';
    local $/;
    return <$fh> // '';
}

for my $c (@cases) {
    my ($how, $path, $ref) = @$c;
    my ($rcode, undef, $rbody) = curl(url("$ref?leave"));
    my ($ncode, undef, $nbody) = curl(url("$ref?next"));
    ok t_cmp("$rcode $ncode $nbody", "200 200 answer to next\n", "$how: mod_cgid answers");
    my $rwrote = slurp($flag);
    curl(url("$path?first"));       # the engine is up
    my $off = log_offset();
    my ($code, undef, $body) = curl(url("$path?leave"));
    ok t_cmp("$code $body", "$rcode $rbody", "$how: the response is mod_cgid's");
    # another client's request, on the same engine (a pool of one), while
    # the child writes to what it has
    ($code, undef, $body) = curl(url("$path?next"));
    ok t_cmp("$code $body", "200 answer to next\n", "$how: the next client gets nothing of the child's");
    my $wrote = slurp($flag);
    ok t_cmp($wrote, $rwrote, "$how: the descriptors the child could write to are those it has under mod_cgid");
    ok t_cmp(join("\n", grep { /CGIPLUS(?:1130|1131|1705|2025|1076):|LEFTOVER/ } split /\n/, log_since($off)), '',
             "$how: no worker stopped as broken, no bad header");
}
