# Deploys under load: a script replaced 20 times (18 renames into place, 2
# copies over it) while three clients request it without pause. Every
# response must succeed; the pool rolls over to each new file: new requests
# meet new workers, old workers finish their request and go.
use strict;
use warnings FATAL => 'all';
use Apache::Test;
use Apache::TestUtil;
use File::Path qw(make_path);
use Time::HiRes qw(sleep time);
use lib 't/htdocs/pool/lib';
use PoolTest qw(hget status pool_of version_script);

plan tests => 9;

my $vars = Apache::Test::config()->{vars};
my $dir = "$vars->{t_logs}/deploy";
make_path($dir);
chmod 0755, $dir;

sub script { version_script($_[0], 1) }

sub deploy {
    my ($v, $in_place) = @_;
    if ($in_place) { # copy over the file: one write into the same inode
        open my $fh, '+<', "$dir/app.pl" or die "$dir/app.pl: $!";
        truncate $fh, 0;
        syswrite $fh, script($v);
        close $fh;
        return;
    }
    open my $fh, '>', "$dir/app.pl.new" or die "$dir/app.pl.new: $!";
    print $fh script($v);
    close $fh;
    chmod 0755, "$dir/app.pl.new";
    rename "$dir/app.pl.new", "$dir/app.pl" or die "rename: $!";
}

deploy(0, 0);
my $first = hget('/deploy/app.pl');
ok t_cmp($first->{body}, qr/^version=0 /, 'version 0 is served');

# Three clients without pause; each writes "client code complete version".
my $stop = "$dir/stop";
unlink $stop;
pipe my $rd, my $wr or die "pipe: $!";
my @kids;
for my $c (1 .. 3) {
    my $pid = fork // die "fork: $!";
    if (!$pid) {
        close $rd;
        $wr->autoflush(1);
        until (-e $stop) {
            my $r = hget('/deploy/app.pl', timeout => 10);
            my ($v) = $r->{body} =~ /version=(\d+)/;
            my $ok = $r->{body} =~ /done\n\z/ ? 1 : 0;
            print $wr "$c $r->{code} ", ($r->{complete} && $ok ? 1 : 0), ' ', $v // -1, "\n";
        }
        exit 0;
    }
    push @kids, $pid;
}
close $wr;

# After each deploy the very next request of this process must already meet
# the new version: new requests go to new workers at once. A file copied over
# in place is taken once it has been still for 200 ms (it may be half
# written before), so that check waits 250 ms.
my $t0 = time;
my @next;
for my $v (1 .. 20) {
    sleep 0.3;
    my $in_place = $v == 7 || $v == 14;
    deploy($v, $in_place);
    sleep 0.25 if $in_place;
    my ($got) = hget('/deploy/app.pl', timeout => 10)->{body} =~ /version=(\d+)/;
    push @next, $got // -1;
}
sleep 0.6;
open my $sf, '>', $stop or die;
close $sf;
my @lines = <$rd>;
waitpid $_, 0 for @kids;
my $took = time - $t0;

my (@bad, %last, %seen);
for (@lines) {
    my ($c, $code, $complete, $v) = split;
    push @bad, $_ unless $code == 200 && $complete;
    $last{$c} = $v;
    $seen{$v}++;
}
ok t_cmp("@next", join(' ', 1 .. 20), 'the first request after each deploy meets the new version');
ok t_cmp(scalar(@lines) > 100 ? 1 : 0, 1, scalar(@lines) . ' responses under load');
ok t_cmp(scalar(@bad), 0, 'zero failed responses' . (@bad ? ": @bad[0 .. ($#bad > 4 ? 4 : $#bad)]" : ''));
ok t_cmp(join(',', map { $last{$_} } sort keys %last), '20,20,20', 'every client ends on version 20');
ok t_cmp(scalar(keys %seen) >= 10 ? 1 : 0, 1, scalar(keys %seen) . ' versions were served along the way');
ok t_cmp($took < 20 ? 1 : 0, 1, sprintf('20 deploys in %.1f s', $took));
my $p = pool_of(status(), 'deploy');
# Every deploy rolled the pool over (the first request after it met the new
# version, above). A copy over the file seen half written while no old
# worker was free rolls over once more when the write completes.
ok t_cmp($p->{generation} >= 20 && $p->{generation} <= 22 ? 1 : 0, 1,
         "the pool rolled over for each of the 20 deploys (generation $p->{generation})");
ok t_cmp($p->{counters}{deaths}{deploy} >= 20 ? 1 : 0, 1,
         "old workers left for \"deploy\" ($p->{counters}{deaths}{deploy})");
