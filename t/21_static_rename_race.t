# The fast path's symlink policy while something renames files. openat2's
# RESOLVE_BENEATH walk fails with EAGAIN when a rename anywhere on the
# machine races a ".." that stays beneath (here: the first of a symlink
# target's two). A local process renaming in a loop (any script can) must
# neither let a link out of the tree through to httpd's core, which
# follows symlinks (the outside directory's listing, the file), nor fail a
# link that stays inside.
use strict;
use warnings FATAL => 'all';
use Apache::Test;
use Apache::TestUtil qw(t_cmp);
use Apache::TestRequest qw(GET POST);
use File::Temp qw(tempdir);
use POSIX ();

my $docs = Apache::Test::vars('documentroot');
my $dir = "$docs/static";
sub link_once { my ($to, $name) = @_; symlink($to, "$dir/$name") unless -l "$dir/$name" }
mkdir "$docs/outside" unless -d "$docs/outside";
open my $os, '>', "$docs/outside/outside-secret.txt" or die $!;
print $os "outside secret\n";
close $os;
link_once('../../outside', 'sub/updir-out');
link_once('../../outside/outside-secret.txt', 'sub/upfile-out.txt');
link_once('../hello.txt', 'sub/up.txt');

my $n = 300;
plan tests => 5;
Apache::TestRequest::module('cgiplus_static');

my $tmp = tempdir(CLEANUP => 1);
my $spinner = fork // die "fork: $!";
if (!$spinner) {
    chdir $tmp or POSIX::_exit(1);
    open my $f, '>', 'a' or POSIX::_exit(1);
    close $f;
    while (1) { rename 'a', 'b'; rename 'b', 'a' }
}

# Each case: how many of n requests got something other than wanted.
sub tally {
    my ($req, $want, $body_ok) = @_;
    my %bad;
    for (1 .. $n) {
        my $r = $req->();
        next if $r->code == $want && $body_ok->($r->content);
        $bad{$r->code . ($r->content =~ /outside.secret/ ? ' with the outside file' : '')}++;
    }
    return join(', ', map { "$bad{$_} x $_" } sort keys %bad) || 'none';
}
my $no_secret = sub { $_[0] !~ /outside.secret/ };

ok t_cmp(tally(sub { GET '/static/sub/updir-out/' }, 403, $no_secret), 'none',
         "a symlinked directory outside, $n times: always 403, never its listing");
ok t_cmp(tally(sub { GET '/static/sub/upfile-out.txt' }, 403, $no_secret), 'none',
         "a symlink to a file outside, $n times: always 403");
ok t_cmp(tally(sub { POST '/static/sub/upfile-out.txt', content => 'a=1' }, 403, $no_secret), 'none',
         "... by POST (left to httpd): always 403");
ok t_cmp(tally(sub { GET '/static/sub/up.txt' }, 200, sub { $_[0] eq "Hello, static\n" }), 'none',
         "a symlink with '..' that stays inside, $n times: always served");

ok t_cmp(kill(0, $spinner), 1, 'the renames went on all along');
kill 'KILL', $spinner;
waitpid $spinner, 0;
