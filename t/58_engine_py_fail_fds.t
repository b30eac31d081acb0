# The Python engine closes what a failed script left open (found by a long
# soak: an engine held one more unlinked /tmp file after each upload its
# cgi.FieldStorage script failed on). The traceback the engine keeps to
# report the failure referred, through the frames' callers, to the
# engine's own frame holding it: a cycle, freed only when the garbage
# collector ran, so the script's objects (its temporary file) outlived the
# request, and an engine could run out of descriptors. A CGI process
# closes everything at its exit; the engine must after the request.
use strict;
use warnings FATAL => 'all';
use Apache::Test;
use Apache::TestUtil;
use lib 't/htdocs/apps';
use AppTest qw(curl url);

plan tests => 6;

sub engine_pid {
    my ($code, undef, $body) = curl(url('/epytmp/env.py'));
    return $code == 200 && $body =~ /^pid=(\d+)$/m ? $1 : 0;
}

sub open_files {
    my ($pid) = @_;
    opendir my $d, "/proc/$pid/fd" or return -1;
    return scalar grep { /^\d+$/ } readdir $d;
}

my $pid = engine_pid();
ok t_cmp($pid ? 1 : 0, 1, 'the Python engine answers (env.py names its pid)');
my $before = open_files($pid);
my %codes;
for (1 .. 20) {
    my ($code) = curl(url('/epytmp/raise_tmp.py'));
    $codes{$code}++;
}
ok t_cmp(join(',', map { "$_ x$codes{$_}" } sort keys %codes), '500 x20',
         'a script that fails after opening a temporary file: 500, twenty times');
ok t_cmp(engine_pid(), $pid, 'the same engine served them all');
my $after = open_files($pid);
ok t_cmp($after <= $before ? 'no more' : "$before -> $after", 'no more',
         'the engine holds no more descriptors than before them');

# A script that ends well but defined a function: the function's globals
# are the script's namespace, which holds the function, a cycle that kept
# the namespace's objects (its open file) until the garbage collector ran.
%codes = ();
for (1 .. 20) {
    my ($code, undef, $body) = curl(url('/epytmp/def_tmp.py'));
    $codes{"$code $body"}++;
}
ok t_cmp(join(',', map { "$_ x$codes{$_}" } sort keys %codes), "200 ok\n x20",
         'a script that keeps an open file in a global and defines a function: twenty answers');
$after = open_files($pid);
ok t_cmp($after <= $before ? 'no more' : "$before -> $after", 'no more',
         'the engine holds no more descriptors than before them');
