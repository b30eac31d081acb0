# Plack's own conformance suite for PSGI servers (Plack::Test::Suite, the
# one Starman, HTTP::Server::PSGI and Plack::Handler::FCGI are tested with)
# through httpd, mod_cgiplus and cgiplus-psgi: each of its tests, its client
# against its application, passes but for one that httpd decides (below).
# Starman passes all of them (36 tests, Debian's Plack 1.0050). The suite's
# 'repeated slashes' failed: httpd merges them in PATH_INFO, which
# Plack::Handler::CGIplus now takes back from REQUEST_URI (@paths below).
use strict;
use warnings FATAL => 'all';
use Apache::Test qw(-withtestmore);
use Test2::API qw(intercept);
use lib 't/htdocs/apps';
use AppTest qw(write_file curl url);
use Plack::Test::Suite;
use Plack::LWPish;

my @TEST = @Plack::Test::Suite::TEST;
my %index = map { $TEST[$_][0] => $_ } 0 .. $#TEST;

# The suite's tests that fail under httpd, by design (docs/APPS.md,
# "Compared with mod_wsgi and Starman"): name => [why, a request, what
# httpd gives instead].
my %differs = (
    # CGI (RFC 3875) does not pass the credentials to a script: httpd
    # passes Authorization only with CGIPassAuth On in the scope, as to
    # any CGI script (mod_cgid the same). The suite passes with it.
    'handle Authorization header' => ['Authorization only with CGIPassAuth On',
        sub { my $r = $_[0]->(HTTP::Request->new(GET => 'http://127.0.0.1/', [Authorization => 'Basic XXXX']));
              return $r->code . ' ' . $r->header('X-AUTHORIZATION') . ' ' . $r->content }, '200 0 no_auth'],
);

# Each scope (t/conf/extra.conf.in) its own copy of the suite's application:
# it picks the test's by the X-Plack-Test header its client sends, behind
# Plack::Middleware::Lint, as run_server_tests serves it. One of its
# assertions is the server's ('call close after read IO::Handle-like': the
# body's close was called), made with ::ok when the server runs in the
# test's process, as run_server_tests forks it: here ::ok writes it to the
# error log.
# [file, what the scope is, the tests that fail there by design]
my @scopes = (
    ['suite.t.psgi',       'persistent',                  [sort keys %differs]],
    ['suite.t.psgi',       'persistent, again',           [sort keys %differs]],
    ['suite-auth.t.psgi',  'persistent, CGIPassAuth On',  []],
    ['suite-relay.t.psgi', 'through the runner',          [sort keys %differs]],
    ['suite-cgi.t.psgi',   'as plain CGI',                [sort keys %differs]],
    ['suite-reload.t.psgi', 'persistent, --reload',       [sort keys %differs]],
    # Plack's own FastCGI handler (which Plack tests with the suite) as a
    # FastCGI worker (CGIplusMode fastcgi), for the FastCGI path.
    ['suite-fcgi.t.psgi',  'Plack::Handler::FCGI',        [sort keys %differs]],
);
# Repeated slashes in PATH_INFO (the suite's 'repeated slashes'), and
# where they are not taken back: request path => SCRIPT_NAME|PATH_INFO.
my @paths = (
    ['/apps/paths.t.psgi//foo///bar/baz'          => '/apps/paths.t.psgi|//foo///bar/baz'],
    ['/apps//paths.t.psgi//x'                     => '/apps/paths.t.psgi|//x'],
    ['/apps/paths.t.psgi/a%2520b//c%E3%81%82'     => "/apps/paths.t.psgi|/a%20b//c\xe3\x81\x82"],
    ['/apps/paths.t.psgi//q?a=//b'                => '/apps/paths.t.psgi|//q'],
    ['/apps/paths.t.psgi/q?a=//b'                 => '/apps/paths.t.psgi|/q'],
    # dot segments: httpd resolves them, its PATH_INFO stays
    ['/apps/paths.t.psgi/a/./b//c'                => '/apps/paths.t.psgi|/a/b/c'],
    ['/apps/paths.t.psgi/'                        => '/apps/paths.t.psgi|/'],
);
plan tests => @scopes * @TEST + (keys %differs) + 1 + 2 * @paths + 2;

my $vars = Apache::Test::config()->{vars};
# The scopes' TMPDIR (t/conf/extra.conf.in): Test::More's directories of
# the workers go there, not to /tmp.
my $tmp = "$vars->{t_logs}/psgisuitetmp";
mkdir $tmp;
chmod 01777, $tmp;
my $apps = "$vars->{documentroot}/apps";
my $launcher = "$vars->{top_dir}/lib/perl/cgiplus-psgi";
for my $file (map { $_->[0] } @scopes) {
    my $first = $file =~ /fcgi/ ? "#!$^X\nuse Plack::Handler::FCGI;"
              : $file =~ /reload/ ? "#!$launcher --reload" : "#!$launcher";
    my $run = $file =~ /fcgi/ ? 'Plack::Handler::FCGI->new->run($app);' : '$app;';
    write_file("$apps/$file", <<"PSGI");
$first
sub main::ok { print STDERR "psgi-suite server ok: \$_[1] ($file)\n" if \$_[0] }
use Plack::Test::Suite;
use Plack::Middleware::Lint;
my \$app = Plack::Middleware::Lint->wrap(Plack::Test::Suite->test_app_handler);
$run
PSGI
}

# run_server_tests' client, the application under the script's path (the
# suite's clients read PLACK_TEST_SCRIPT_NAME too).
my $ua = Plack::LWPish->new(no_proxy => [qw/127.0.0.1/]);
sub sender {
    my ($i) = @_;
    return sub {
        my $req = shift;
        $req->uri->port($vars->{port});
        $req->uri->path($ENV{PLACK_TEST_SCRIPT_NAME} . $req->uri->path);
        $req->header('X-Plack-Test' => $i);
        return $ua->request($req);
    };
}

# The suite's test I: its failures' diagnostics ('' if it passed).
sub run_one {
    my ($i) = @_;
    my $events = intercept { $TEST[$i][1]->(sender($i)) };
    my $failed = grep { $_->isa('Test2::Event::Ok') && !$_->effective_pass } @$events;
    my @diag = map { $_->isa('Test2::Event::Diag') ? $_->message : () } @$events;
    return $failed ? join("\n", @diag) || 'failed' : '';
}

for my $scope (@scopes) {
    my ($file, $what, $fail) = @$scope;
    local $ENV{PLACK_TEST_SCRIPT_NAME} = "/apps/$file";
    my %fail = map { $_ => 1 } @$fail;
    for my $i (0 .. $#TEST) {
        my $name = $TEST[$i][0];
        my $diag = run_one($i);
        if ($fail{$name}) {
            ok($diag ne '', "$name ($what): fails, $differs{$name}[0]");
        } else {
            ok($diag eq '', "$name ($what)") or diag $diag;
        }
    }
}
$ENV{PLACK_TEST_SCRIPT_NAME} = '/apps/suite.t.psgi';
for my $name (sort keys %differs) {
    my (undef, $client, $want) = @{ $differs{$name} };
    is($client->(sender($index{$name})), $want, "$name: what httpd gives");
}

# The body's close, once in each pass.
my $log = "$vars->{t_logs}/error_log";
my @closed;
for (1 .. 50) {
    @closed = grep { /psgi-suite server ok: closed / } split /\n/, do { local (@ARGV, $/) = ($log); <> } // '';
    last if @closed >= @scopes;
    select undef, undef, undef, 0.1;
}
is(join('|', sort map { /\((\S+)\)$/ ? $1 : $_ } @closed), join('|', sort map { $_->[0] } @scopes),
   "the suite's server-side assertion: each response body's close is called");

write_file("$apps/paths.t.psgi", <<"PSGI");
#!$launcher
sub { [200, ['Content-Type' => 'text/plain'], ["\$_[0]{SCRIPT_NAME}|\$_[0]{PATH_INFO}"]] };
PSGI
for my $n (1, 2) {
    for my $p (@paths) {
        my ($code, undef, $body) = curl('--path-as-is', url($p->[0]));
        is("$code $body", "200 $p->[1]", "$p->[0] ($n)");
    }
    # the absolute form of the request line
    my ($code, undef, $body) = curl('--request-target', url('/apps/paths.t.psgi//abs//x'), url('/'));
    is("$code $body", "200 /apps/paths.t.psgi|//abs//x", "an absolute request target ($n)");
}
