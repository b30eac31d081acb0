# Debian's ikiwiki, unmodified: the CGI wrapper ikiwiki compiles (a C
# program, set-uid and set-gid to the wiki's owner, that keeps a few CGI
# variables, drops its real ids and runs ikiwiki's Perl), made by `ikiwiki
# --setup` as www-data for a wiki of two pages, served as the httpauth
# plugin's documentation sets it up: /cgi-bin/ikiwiki.cgi open,
# /auth/ikiwiki.cgi (the same wrapper) behind Basic auth as cgiauthurl.
# Two virtual hosts of one private httpd, one with mod_cgid, one with
# CGIplusCompat (plain CGI through the runner), each with a wiki of its
# own, httpd's User not the wiki's owner: the same walk on both with a
# cookie jar each (an anonymous edit bounced to cgiauthurl, the
# preferences page and its POST, the edit form, a preview, a save, a new
# page's form and its save, goto, a missing page, an unknown action, a
# stale session id): the same status, headers (but the date, Server, the
# framing) and body; both wikis end with the same sources and pages, the
# files written as www-data.
use strict;
use warnings FATAL => 'all';
use Apache::Test;
use Apache::TestUtil;
use POSIX ();
use Digest::SHA qw(sha1_base64);
use lib 't/lib', 't/htdocs/apps';
use PrivateHttpd qw(private_start private_stop fresh_dir);
use FreePort qw(free_ports);
use AppTest qw(write_file curl);
use SideBySide qw(walk same_answer pool_of cgid_pair_conf);

my $owner = 'www-data';
my ($ouid, $ogid) = (getpwnam($owner))[2, 3];
# The session id of the last form a side got (ikiwiki's check against a
# forged POST), for the next POST.
sub sid { ($_[0]{body} =~ /name="sid" type="hidden" value="(\w+)"/)[0] // 'none' }
my @auth = ('-u', 'ann:secret');
my $A = '/auth/ikiwiki.cgi';
# Each step: (what the side answered last, the side) -> [METHOD, path, curl arguments].
my @steps = (
    sub { ['GET', '/cgi-bin/ikiwiki.cgi?do=edit&page=sandbox'] },    # to cgiauthurl
    sub { ['GET', '/cgi-bin/ikiwiki.cgi?do=prefs'] },
    sub { ['GET', "$A?do=prefs", @auth] },
    sub { ['POST', $A, @auth, '--data', 'do=prefs&_submitted_preferences=1&sid=' . sid($_[0])
                                        . '&email=ann%40example.org&_submit=Save+Preferences'] },
    sub { ['GET', "$A?do=prefs", @auth] },
    sub { ['GET', "$A?do=edit&page=sandbox", @auth] },
    sub { ['POST', $A, @auth, '--data', 'do=edit&_submitted=1&page=sandbox&type=mdwn&rcsinfo=&from=&sid='
                                        . sid($_[0]) . '&editcontent=New+*text*%2C+caf%C3%A9%2C+[[index]].'
                                        . '&_submit=Preview'] },
    sub { ['POST', $A, @auth, '--data', 'do=edit&_submitted=1&page=sandbox&type=mdwn&rcsinfo=&from=&sid='
                                        . sid($_[0]) . '&editcontent=New+*text*%2C+caf%C3%A9%2C+[[index]].'
                                        . '&_submit=Save+Page'] },
    sub { ['GET', "$A?do=create&page=newpage&from=index", @auth] },
    sub { ['POST', $A, @auth, '--data', 'do=create&_submitted=1&page=newpage&type=mdwn&rcsinfo=&from=index&sid='
                                        . sid($_[0]) . '&editcontent=A+new+page+linking+[[sandbox]].'
                                        . '&_submit=Save+Page'] },
    sub { ['GET', "$A?do=edit&page=newpage", @auth] },
    sub { ['POST', $A, @auth, '--data', 'do=edit&_submitted=1&page=newpage&type=mdwn&rcsinfo=&from=&sid=0123'
                                        . '&editcontent=forged&_submit=Save+Page'] },
    sub { ['GET', '/cgi-bin/ikiwiki.cgi?do=goto&page=newpage'] },
    sub { ['GET', '/cgi-bin/ikiwiki.cgi?do=goto&page=nosuch'] },
    sub { ['GET', '/cgi-bin/ikiwiki.cgi?do=nosuch'] },
    sub { ['GET', '/cgi-bin/ikiwiki.cgi'] },
    sub { ['GET', '/wiki/newpage/'] },
    sub { ['GET', '/wiki/sandbox/'] },
);
plan tests => 5 * @steps + 8,
    need { 'needs ikiwiki with its CGI modules (Debian packages ikiwiki, libcgi-session-perl, libcgi-formbuilder-perl)'
               => (-x '/usr/bin/ikiwiki' && -r '/usr/share/perl5/CGI/Session.pm'
                   && -r '/usr/share/perl5/CGI/FormBuilder.pm'),
           "needs root and the user $owner (the wiki's owner, not httpd's)" => ($> == 0 && defined $ouid) };

my $vars = Apache::Test::config()->{vars};
my $dir = "$vars->{t_logs}/ikiwiki";
my ($cport, $pport) = free_ports(2);
my %port = (ref => $cport, ours => $pport);
fresh_dir($dir);

# ---- a wiki a side, made by ikiwiki --setup as its owner (the wrapper is
# set-uid to whoever made it)
for my $side (qw(ref ours)) {
    my $w = "$dir/$side";
    mkdir $w;
    mkdir "$w/$_" for qw(src cgi-bin);
    write_file("$w/src/index.mdwn", "# Welcome\n\nThe [[sandbox]] page.\n", 0644);
    write_file("$w/src/sandbox.mdwn", "Play here, caf\xc3\xa9.\n", 0644);
    write_file("$w/wiki.setup", <<"SETUP", 0644);
use IkiWiki::Setup::Standard {
	wikiname => "cgiplus test wiki",
	adminuser => ["ann"],
	srcdir => "$w/src",
	destdir => "$w/html",
	url => "http://127.0.0.1:$port{$side}/wiki",
	cgiurl => "http://127.0.0.1:$port{$side}/cgi-bin/ikiwiki.cgi",
	cgiauthurl => "http://127.0.0.1:$port{$side}/auth/ikiwiki.cgi",
	cgi_wrapper => "$w/cgi-bin/ikiwiki.cgi",
	cgi_wrappermode => "06755",
	add_plugins => [qw(httpauth)],
	disable_plugins => [qw(passwordauth openid)],
	rcs => "",
	syslog => 0,
	verbose => 0,
}
SETUP
    system('chown', '-R', "$ouid:$ogid", $w) == 0 or die "chown\n";
    my $pid = fork // die "fork: $!";
    if (!$pid) {
        POSIX::setgid($ogid);
        POSIX::setuid($ouid);
        $ENV{HOME} = $w;
        open STDOUT, '>', "$w/setup.out";
        open STDERR, '>&', \*STDOUT;
        exec 'ikiwiki', '--setup', "$w/wiki.setup";
        exit 127;
    }
    waitpid $pid, 0;
    die "ikiwiki --setup failed: " . `cat '$w/setup.out'` if $?;
}
my @st = stat "$dir/ours/cgi-bin/ikiwiki.cgi";
ok t_cmp(sprintf('%o %s', $st[2] & 07777, scalar getpwuid($st[4])), "6755 $owner",
         "ikiwiki made its wrapper set-uid and set-gid, owned by $owner");
write_file("$dir/htpasswd", "ann:{SHA}" . sha1_base64('secret') . "=\n", 0644);

# (httpauth's documentation: the same wrapper at cgiauthurl, behind
# httpd's authentication)
sub vhost {
    my ($side) = @_;
    return <<"CONF";
    ScriptAlias /cgi-bin/ $dir/$side/cgi-bin/
    ScriptAlias /auth/ $dir/$side/cgi-bin/
    Alias /wiki $dir/$side/html
    <Location /auth/>
        AuthType Basic
        AuthName wiki
        AuthUserFile $dir/htpasswd
        Require valid-user
    </Location>
CONF
}
write_file("$dir/httpd.conf", cgid_pair_conf($dir, \%port, mods => [qw(dir auth_basic authn_core authn_file authz_user)],
                                              grant => [$dir], global => "DirectoryIndex index.html\n",
                                              compat => ['/cgi-bin/', '/auth/'], vhost => \&vhost), 0644);
ok t_cmp(private_start("$dir/httpd.conf", $cport), 1, "httpd with mod_cgid and the drop-in, an ikiwiki wrapper in both");

# What differs between two servers or two requests: the port; each side's
# own wiki ($dir/ref, $dir/ours); the session id (random: the cookie, the
# forms' sid); the clock (the pages' "last edited" and "created" times).
# (ikiwiki's timeformat, %c: "Mon Dec  7 00:54:29 2026")
my @today = map { POSIX::strftime('%a %b %e', localtime(time + $_)) } 0, 60;
sub norm {
    my ($b, $port) = @_;
    $b =~ s/127\.0\.0\.1:$port/127.0.0.1:PORT/g;
    $b =~ s{\Q$dir\E/(?:ref|ours)/}{$dir/SIDE/}g;
    $b =~ s/(name="sid" type="hidden" value=")\w+/$1SID/g;
    $b =~ s/(?:\Q$today[0]\E|\Q$today[1]\E) \d\d:\d\d:\d\d \d{4}/NOW/g;
    return $b;
}
sub heads {
    my ($h) = @_;
    my @k = grep { !/^(date|server|content-length|transfer-encoding|connection|keep-alive|location|last-modified|etag|accept-ranges)$/ } keys %$h;
    return join "\n", map { my $v = norm($h->{$_}, 0);
                            $v =~ s/^(ikiwiki_session_\S+?=)\w+/$1SID/ if $_ eq 'set-cookie';
                            "$_: $v" } sort @k;
}

my $n = 0;
walk(\@steps, \%port, $dir, \&norm, sub {
    my ($what, $r) = @_;
    $n++;
    write_file("$dir/$_/body-$n", $r->{$_}{body}, 0644) for keys %$r;    # for a failing run's reader
    same_answer($what, 'mod_cgiplus', $r->{ours}, $r->{ref}, 'mod_cgid');
    ok t_cmp(heads($r->{ours}{h}), heads($r->{ref}{h}), "$what: the same other headers");
});

sub slurp { open my $fh, '<', $_[0] or return ''; local $/; <$fh> // '' }
ok t_cmp(slurp("$dir/ours/src/sandbox.mdwn"), "New *text*, caf\xc3\xa9, [[index]].\n",
         "the drop-in's ikiwiki saved the edit");
ok t_cmp(slurp("$dir/ours/src/newpage.mdwn"), "A new page linking [[sandbox]].\n", 'and the new page');
ok t_cmp(slurp("$dir/ours/src/newpage.mdwn") . slurp("$dir/ours/src/sandbox.mdwn"),
         slurp("$dir/ref/src/newpage.mdwn") . slurp("$dir/ref/src/sandbox.mdwn"), "as mod_cgid's did");
ok t_cmp(join(' ', map { scalar getpwuid((stat $_)[4]) } "$dir/ours/src/newpage.mdwn", "$dir/ours/html/newpage/index.html"),
         "$owner $owner", "written as $owner (the wrapper's set-uid), not httpd's User");
ok t_cmp(norm(slurp("$dir/ours/html/index.html"), $pport), norm(slurp("$dir/ref/html/index.html"), $cport),
         'the rebuilt front page is the same');
my $pool = pool_of("http://127.0.0.1:$pport/status", "$dir/ours/cgi-bin/ikiwiki.cgi");
ok t_cmp($pool ? "$pool->{mode} " . ($pool->{counters}{requests} >= 12 ? 'all' : $pool->{counters}{requests}) : 'no pool',
         'cgi all', "the drop-in's requests ran through the runner, as plain CGI");
private_stop("$dir/httpd.pid");
