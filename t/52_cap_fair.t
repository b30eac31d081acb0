# The global cap is shared fairly (docs/RUNNER.md, "The global cap"): at
# max_workers_total, a worker that ends (here recycled: max_requests 1)
# hands its slot to the pools already waiting for one, oldest first; its
# own pool, with requests queued too, then waits for a slot like any
# other, and gets one when the waiting pool's worker goes idle (evicted,
# 2067). The same for a WebSocket pool waiting for the slot of a worker on
# its way out (slow to stop: it ignores SIGTERM). Before, the ending pool
# took its slot back for its own queue, and the waiting pool got none
# while that queue lasted (503 after queue_wait).
use strict;
use warnings FATAL => 'all';
use Apache::Test;
use Apache::TestUtil;
use File::Path qw(make_path remove_tree);
use lib 't/htdocs/pool/lib';
use PoolTest qw(wire_connect wire_request wire_frames wire_status wait_for standalone_runner);

plan tests => 11;

my $vars = Apache::Test::config()->{vars};
my $dir = "$vars->{t_logs}/capfair";
remove_tree($dir);
make_path($dir);
chmod 0755, $dir;
my $sock = "$dir/r.sock";
standalone_runner($dir, 'runner', "socket $sock\nuser $vars->{user}\nmax_workers_total 2\nkill_grace 8s\n");
wait_for(sub { -S $sock }, 5);

my $app = "$vars->{documentroot}/pool/app.pl";
my @a = (script => $app, env => 'POOL_a=a', max_workers => 2, max_requests => 1, queue_wait => '60s');
my @b = (script => "$vars->{documentroot}/pool/other.pl", env => 'POOL_b=b', max_workers => 1,
         queue_wait => '10s');
my %s;
sub req {
    my ($name, $q, @begin) = @_;
    my $s = $s{$name} = wire_connect($sock);
    wire_request($s, 1, [uri => "/$name", mode => 'cgiplus', @begin],
                 [QUERY_STRING => $q, CONTENT_LENGTH => 0, REQUEST_METHOD => 'GET', REMOTE_ADDR => '127.0.0.1']);
}
sub started { my ($name) = @_; my @f = wire_frames($s{$name}, 10, 10, until => sub { $_[0]{type} == 14 });
              return @f && $f[-1]{type} == 14 }
sub ended { my ($name, $t) = @_; my @f = wire_frames($s{$name}, 1000, $t // 20);
            return @f && $f[-1]{type} == 8 ? ($f[-1]{outcome}, join '', map { $_->{payload} } grep { $_->{type} == 6 } @f)
                                           : ('none', '') }
sub pool { my ($tag) = @_;
    return (grep { grep { $_ eq "POOL_$tag" } @{ $_->{settings}{env} } } @{ wire_status(wire_connect($sock))->{pools} })[0] }
sub depth { my $p = pool($_[0]); return $p ? $p->{queue}{depth} : -1 }
sub ws_queue { my $st = wire_status(wire_connect($sock));
               my ($p) = grep { $_->{script} =~ m{/ws/pid\.py$} } @{ $st->{websocket}{pools} // [] };
               return $p ? $p->{queue} : -1 }
sub stopping { my $p = pool($_[0]); return $p ? scalar grep { $_->{state} eq 'stopping' } @{ $p->{workers} } : 0 }
sub log_of { open my $fh, '<', "$dir/runner.log" or return ''; local $/; return <$fh> }

# A takes the cap (2 busy workers, held), 2 more of its requests queue;
# then B's request waits for a slot.
req('a1', "hold=$dir/g1", @a);
req('a2', "hold=$dir/g2", @a);
my $on = started('a1') && started('a2');
req('a3', "hold=$dir/g3", @a);
req('a4', "hold=$dir/g3", @a);
$on &&= wait_for(sub { depth('a') == 2 }, 10);
req('b1', '', @b);
$on &&= wait_for(sub { depth('b') == 1 }, 10);
ok t_cmp($on ? 1 : 0, 1, 'A holds both slots of the cap and queues 2 more; B waits for a slot');

# a1 ends; its worker is recycled (max_requests 1): the slot is B's.
open my $g1, '>', "$dir/g1" or die;
close $g1;
my ($o, $out) = ended('a1');
ok t_cmp($o, 0, 'a1 is served, its worker recycled');
($o, $out) = ended('b1');
ok t_cmp("$o $out", qr/^0 .*pool=b/s, "the freed slot serves B's waiting request, not A's queue");
ok t_cmp(depth('a'), qr/^[12]$/, "... while A's requests still wait (A queues for a slot in turn)");

# B's worker, idle now, goes for A, which waits for a slot like any other.
ok t_cmp(wait_for(sub { log_of() =~ m{CGIPLUS2067: all 2 workers of the runner are taken; stopping idle worker pid \d+ of \S+/pool/other\.pl for \Q$app\E} }, 10) ? 1 : 0,
         1, "B's idle worker is stopped for A (2067)");
for my $g ('g2', 'g3') { open my $fh, '>', "$dir/$g" or die; close $fh }
my @o = map { (ended($_))[0] } qw(a2 a3 a4);
ok t_cmp("@o", '0 0 0', "A's other requests are served");
my $pb = pool('b');
ok t_cmp($pb ? $pb->{counters}{deaths}{evicted} : -1, 1, 'B counts its worker evicted');

# A WebSocket pool waits for the slot of A's worker on its way out (a5's,
# recycled, ignoring SIGTERM until kill_grace), A's next request queued
# at its max_workers: once that worker is gone, the upgrade is the one
# served, and A's request waits for the next slot.
wait_for(sub { my $st = wire_status(wire_connect($sock)); $st->{runner}{workers} == 0 }, 15);
req('a6', "hold=$dir/g6", @a);
$on = started('a6');
req('a5', 'ignore_term', @a);
$on &&= (ended('a5'))[0] eq '0' && wait_for(sub { stopping('a') == 1 }, 5);
req('a7', "hold=$dir/g7", @a);
$on &&= wait_for(sub { depth('a') == 1 }, 5);
req('w1', '', script => "$vars->{documentroot}/ws/pid.py", mode => 'websocket', queue_wait => '20s');
$on &&= wait_for(sub { ws_queue() == 1 }, 5) && stopping('a') == 1;
ok t_cmp($on ? 1 : 0, 1, "an upgrade waits for the slot of A's stopping worker, a request of A's queued");
my @f = wire_frames($s{w1}, 1000, 20);
ok t_cmp(join(' ', map { $_->{type} == 8 ? "end $_->{outcome}" : $_->{type} } grep { $_->{type} == 40 || $_->{type} == 8 } @f),
         '40 end 0', "once it is gone, the upgrade is accepted, not A's request started");
ok t_cmp(depth('a'), 1, "... A's request still waits");
for my $g ('g6', 'g7') { open my $fh, '>', "$dir/$g" or die; close $fh }
@o = map { (ended($_))[0] } qw(a6 a7);
ok t_cmp("@o", '0 0', "A's requests are served once its busy worker ends");
