# Issue 25, point 1: a script whose code fails mid-request must not fail the
# next request. A library never writes the end sentinel for a request it did
# not finish: the failed request is answered (500 by a launcher that
# catches the error and goes on; 502 when the worker dies before its
# sentinel; a cut response when its header had gone out) and the next
# request on that pool gets 200 with its own output, and no line of the
# failure is logged under it. Every library (C, Python with requests() and
# with accept()/finish(), Perl, sh) and both launchers' paths (run_wsgi,
# Plack::Handler::CGIplus through cgiplus-psgi); direct path and relayed.
use strict;
use warnings FATAL => 'all';
use Apache::Test;
use Apache::TestUtil;
use Time::HiRes qw(sleep);
use lib 't/htdocs/apps';
use AppTest qw(write_file url);

my $vars = Apache::Test::config()->{vars};
my $docroot = $vars->{documentroot};
write_file("$docroot/fail/psgi.cgp", "#!$vars->{top_dir}/lib/perl/cgiplus-psgi\napp boom.psgi\n");

# script => status of ?boom, and whether the same worker serves on
my %scripts = (
    'boom_c'       => [502, 0],
    'boom_req.py'  => [502, 0],
    'boom_loop.py' => [502, 0],
    'boom.pl'      => [502, 0],
    'boom.sh'      => [502, 0],
    'boom_wsgi.py' => [500, 1],
    'psgi.cgp'     => [500, 1],
);
my @paths = map { my $s = $_; map { "/$_/$s" } qw(fail failr) } sort keys %scripts;
# the launchers' own line for a failure after the response started
my %late_id = ('boom_wsgi.py' => 3210, 'psgi.cgp' => 3251);
plan tests => 9 * @paths + 2 * keys %late_id;

# curl from a local port of our choosing, so that the error log's
# "[client 127.0.0.1:PORT]" tells which request a line was logged under.
# (exit status, HTTP status, body, port). Never the same port twice: a
# port the server closed first is free again at once, and a later request
# from it would carry an earlier one's lines.
my %used_port;
sub fetch {
    my ($u) = @_;
    for (1 .. 20) {
        my $port = 30000 + int rand 25000;
        next if $used_port{$port}++;
        open my $fh, '-|', 'curl', '-s', '--max-time', '20', '--local-port', $port,
            '-w', '\n%{http_code}', url($u) or die "curl: $!";
        local $/;
        my $out = <$fh> // '';
        close $fh;
        my $rc = $? >> 8;
        next if $rc == 45;                  # the port was taken: another
        my ($body, $code) = $out =~ /\A(.*)\n(\d{3})\z/s ? ($1, $2) : ($out, 0);
        return ($rc, $code, $body, $port);
    }
    die "no free local port\n";
}

my $log = "$vars->{t_logs}/error_log";
sub log_size { -s $log // 0 }
sub log_since {
    my ($off) = @_;
    open my $fh, '<', $log or die "$log: $!";
    seek $fh, $off, 0;
    local $/;
    return <$fh> // '';
}

my $n = 0;
for my $u (@paths) {
    my ($script) = $u =~ m{([^/]+)\z};
    my ($boom_status, $same) = @{ $scripts{$script} };
    my $tag = 't' . ++$n . "x$$";
    my (undef, $code, $body) = fetch("$u?first-$tag");
    my ($pid) = $body =~ /^ok pid=(\d+) q=first-\Q$tag\E$/m;
    ok t_cmp("$code $body", qr/^200 ok pid=\d+ q=first-\Q$tag\E\n\z/, "$u: served");

    my $off = log_size();
    my ($rc, $bcode, $bbody, $bport) = fetch("$u?boom-$tag");
    ok t_cmp($bcode, $boom_status, "$u?boom: the failed request is answered $boom_status");
    my ($arc, $acode, $abody, $aport) = fetch("$u?after-$tag");
    ok t_cmp("$acode $abody", qr/^200 ok pid=\d+ q=after-\Q$tag\E\n\z/, "$u: the next request gets its own response");
    my ($apid) = $abody =~ /pid=(\d+)/;
    ok t_cmp(($apid // 0) == ($pid // -1) ? 1 : 0, $same,
             $same ? "$u: the same worker went on" : "$u: the failed worker was replaced");

    # Failing after the header went out: never a complete response.
    ($rc, $code, $body) = fetch("$u?late-$tag");
    ok t_cmp(($code == 200 && $rc == 0) ? "complete: $body" : "cut or failed ($rc, $code)", qr/^cut or failed/,
             "$u?late: a response cut by a failure is not delivered as complete");
    my ($brc, $b2code, $b2body, $b2port) = fetch("$u?after2-$tag");
    ok t_cmp("$b2code $b2body", qr/^200 ok pid=\d+ q=after2-\Q$tag\E\n\z/, "$u: and the next one is 200 again");

    # stderr lines reach the log asynchronously: wait for the failure's
    # (10 s at most) before looking at where every line went
    for (1 .. 200) { last if log_since($off) =~ /failure-marker boom-\Q$tag\E/; sleep 0.05 }
    sleep 0.2;      # and give a stray line under the next requests time to show
    my @lines = split /\n/, log_since($off);
    my @under_after = grep { /\[client 127\.0\.0\.1:(?:$aport|$b2port)\]/ && /failure-marker|Traceback|File "|died/ } @lines;
    ok t_cmp(join("\n", @under_after), '', "$u: no line of the failure is logged under the next requests");
    my @marker = grep { /failure-marker boom-\Q$tag\E/ } @lines;
    ok t_cmp(scalar(@marker) > 0 ? 1 : 0, 1, "$u: the failure is logged");
    ok t_cmp(join("\n", grep { /\[client 127\.0\.0\.1:\d+\]/ && !/\[client 127\.0\.0\.1:$bport\]/ } @marker), '',
             "$u: under the failed request");
    if (my $id = $late_id{$script}) {
        for (1 .. 200) { last if log_since($off) =~ /CGIPLUS$id:/; sleep 0.05 }
        my $n_late = () = log_since($off) =~ /CGIPLUS$id: [^\n]*after its response had started: the worker exits without ending the response, so the client sees it cut/g;
        ok t_cmp($n_late, 1, "$u?late: the launcher says so, once ($id)");
    }
}
