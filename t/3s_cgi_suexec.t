# suEXEC and per-user scripts (issue 25 point 7): SuexecUserGroup (per
# virtual host, mod_suexec) and UserDir (~user/cgi-bin, mod_userdir) with
# Debian's suexec installed (apache2-suexec-pristine), side by side: the same
# private httpd configuration served once by mod_cgid (with the real suexec
# wrapper) and once by mod_cgiplus alone (CGIplusCompat on). Real users made
# here (useradd), real files under /var/www (the wrapper's document root)
# and in their homes. For each request: the same status, the same body (the
# script prints `id -u`, `id -g` and a variable suexec drops), and the same
# lines in suexec's log, whoever wrote them (the wrapper under mod_cgid, the
# runner under mod_cgiplus). Each refusal (wrong owner, group-writable file
# or directory, set-uid, a symlink, root as the target, a script outside the
# document root) is a 500 and its reason in suexec's words, in the error log
# too. Persistent scripts: one pool per user, each worker its user's.
# WebSocket scripts under SuexecUserGroup: the same checks before each
# worker starts (a group-writable one is refused: 500), the worker its
# user's. Everything made here is removed at the end, users included, and
# suexec's log is cut back to what it held.
use strict;
use warnings FATAL => 'all';
use Apache::Test;
use Apache::TestUtil qw(t_cmp);
use File::Path qw(make_path remove_tree);
use LWP::UserAgent;
use lib 't/lib';
use FreePort qw(free_port);
use PrivateHttpd qw(private_conf private_start private_stop fresh_dir);
use WsTest qw(ws_py);

my $wrapper = '/usr/lib/apache2/suexec';
my $have_suexec = $> == 0 && -u $wrapper && (stat $wrapper)[4] == 0 && -x '/usr/sbin/useradd';
my $sxv = $have_suexec ? `$wrapper -V 2>&1` : '';
my ($docroot) = $sxv =~ /AP_DOC_ROOT="([^"]+)"/;
my ($sxlog) = $sxv =~ /AP_LOG_EXEC="([^"]+)"/;
my ($suffix) = $sxv =~ /AP_USERDIR_SUFFIX="([^"]+)"/;

my @refusals = (
    # [ host, path, suexec's words (a pattern) ]
    [ 'a.test',   '/cgi-bin/grpw.sh',   qr{file is writable by others: \(\S+/cgi-bin/grpw\.sh\)} ],
    [ 'a.test',   '/cgi-bin/other.sh',  qr{target uid/gid \(\d+/\d+\) mismatch with directory \(\d+/\d+\) or program \(\d+/\d+\)} ],
    [ 'a.test',   '/cgi-bin/setuid.sh', qr{file is either setuid or setgid: \(\S+/cgi-bin/setuid\.sh\)} ],
    [ 'a.test',   '/cgi-bin/link.sh',   qr{cannot stat program: \(link\.sh\)} ],
    [ 'a.test',   '/gw/id.sh',          qr{directory is writable by others: \(\S+/gw\)} ],
    [ 'root.test', '/cgi-bin/id.sh',    qr{cannot run as forbidden uid \(0/id\.sh\)} ],
    [ 'out.test', '/cgi-bin/id.sh',     qr{command not in docroot \(\S+/cgi-bin/id\.sh\)} ],
);
my @ok = ([ 'a.test', '/cgi-bin/id.sh', 'a' ], [ '127.0.0.1', '/~USERB/cgi-bin/id.sh', 'b' ]);

my $have_ws = !system("$WsTest::PYTHON -c 'import websockets' 2>/dev/null");

plan tests => 2 * (2 + 3 * @ok + 3 * @refusals) + @refusals + 6 + @ok + @refusals + 2 + 7,
    need { 'root, and suEXEC installed setuid (apache2-suexec-pristine)' => $have_suexec &&
           $docroot && $sxlog && $suffix, 'python3-websockets' => $have_ws };

my $vars = Apache::Test::config()->{vars};
my $top = $vars->{top_dir};
my $tag = 'cgpsx' . ($$ % 100000);
my ($ua_name, $ub_name) = ("${tag}a", "${tag}b");
my $root = "$docroot/cgiplus-$tag";             # under the wrapper's document root
my $outside = "$vars->{t_logs}/suexec-outside";  # not under it
my $dir = "$vars->{t_logs}/suexec";
my $port = free_port(); # (an offset from the suite's port meets its virtual hosts)
my $log_size = -e $sxlog ? -s $sxlog : -1;
my @made_users;

END {
    # Leave the machine as found: users, their homes, the files, suexec's log.
    system("userdel -r '$_' 2>/dev/null") for @made_users;
    remove_tree($root, $outside) if $root;
    if (defined $log_size && $sxlog) {
        if ($log_size < 0) { unlink $sxlog } else { truncate $sxlog, $log_size }
    }
}

sub run { system(@_) == 0 or die "@_ failed\n" }
sub put {
    my ($file, $mode, $owner, $text) = @_;
    open my $fh, '>', $file or die "$file: $!";
    print $fh $text;
    close $fh;
    run('chown', $owner, $file);
    chmod $mode, $file or die "chmod $file: $!"; # after chown, which clears set-uid
}
sub mkd { my ($d, $mode, $owner) = @_; make_path($d); run('chown', $owner, $d); chmod $mode, $d }

for my $u ($ua_name, $ub_name) {
    run('useradd', '--create-home', '--user-group', '--shell', '/usr/sbin/nologin', $u);
    push @made_users, $u;
}
my ($uid_a, $gid_a, $home_a) = (getpwnam $ua_name)[2, 3, 7];
my ($uid_b, $gid_b, $home_b) = (getpwnam $ub_name)[2, 3, 7];
$_->[1] =~ s/USERB/$ub_name/ for @ok;

# The scripts: `id` of the process, and FOO, which SetEnv gives and suexec's
# safe list drops. plus.pl speaks CGIplus (a persistent worker) and answers
# with its pid.
my $id_sh = "#!/bin/sh\nprintf 'Content-Type: text/plain\\n\\n'\n" .
            "echo \"uid=\$(id -u) gid=\$(id -g) groups=\$(id -G) foo=\${FOO-unset}\"\n";
my $plus = "#!/usr/bin/perl\nuse lib '$top/lib/perl';\nuse CGIplus;\nmy \$n = 0;\n" .
           "while (CGIplus::accept()) {\n    \$n++;\n" .
           "    print \"Content-Type: text/plain\\n\\npid=\$\$ uid=\$< n=\$n\\n\";\n" .
           "    CGIplus::finish();\n}\n";
my $A = "$ua_name:$ua_name";
mkd($root, 0755, $A);
mkd("$root/cgi-bin", 0755, $A);
put("$root/cgi-bin/id.sh", 0755, $A, $id_sh);
put("$root/cgi-bin/plus.pl", 0755, $A, $plus);
# A WebSocket script answering each message with its process's ids.
my $wsid = "#!/usr/bin/python3\nimport os, sys\nsys.path.insert(0, '$top/lib/python')\n" .
           "import cgiplus\nws = cgiplus.WebSocket()\nfor ev in ws.events():\n" .
           "    if ev.type == 'open':\n        ws.accept(ev.conn)\n" .
           "    elif ev.type == 'message':\n" .
           "        ws.send(ev.conn, 'uid=%d gid=%d' % (os.getuid(), os.getgid()))\n";
put("$root/cgi-bin/wsid.py", 0755, $A, $wsid);
put("$root/cgi-bin/wsgrpw.py", 0775, $A, $wsid);
put("$root/cgi-bin/grpw.sh", 0775, $A, $id_sh);
put("$root/cgi-bin/other.sh", 0755, "$ub_name:$ub_name", $id_sh);
put("$root/cgi-bin/setuid.sh", 04755, $A, $id_sh);
symlink 'id.sh', "$root/cgi-bin/link.sh" or die;
run('chown', '-h', $A, "$root/cgi-bin/link.sh");
put("$root/ssi.shtml", 0644, $A,
    "before<!--#exec cmd=\"echo hi\" -->|<!--#exec cgi=\"/cgi-bin/id.sh\" -->after\n");
mkd("$root/gw", 0775, $A);
put("$root/gw/id.sh", 0755, $A, $id_sh);
mkd("$root/rootvh/cgi-bin", 0755, 'root:root');
put("$root/rootvh/cgi-bin/id.sh", 0755, 'root:root', $id_sh);
mkd("$outside/cgi-bin", 0755, $A);
put("$outside/cgi-bin/id.sh", 0755, $A, $id_sh);
chmod 0711, $home_b; # httpd's user must reach ~/public_html, as with mod_cgi
my $B = "$ub_name:$ub_name";
mkd("$home_b/$suffix/cgi-bin", 0755, $B);
run('chown', $B, "$home_b/$suffix");
put("$home_b/$suffix/cgi-bin/id.sh", 0755, $B, $id_sh);
put("$home_b/$suffix/cgi-bin/plus.pl", 0755, $B, $plus);

# One configuration for both servers; httpd runs as www-data, the user
# Debian's wrapper accepts calls from.
my $conf = <<"CONF";
User www-data
Group www-data
SetEnv FOO bar
UserDir $suffix
<Directory /home/*/$suffix/cgi-bin>
    Options +ExecCGI
    SetHandler cgi-script
    Require all granted
</Directory>
<Directory $docroot>
    Require all granted
    Options +Includes
    <Files "*.shtml">
        SetOutputFilter INCLUDES
    </Files>
</Directory>
<Directory $outside>
    Require all granted
</Directory>
<FilesMatch "^(plus\.pl|wsid\.py|wsgrpw\.py)\$">
    CGIplusMode cgiplus
</FilesMatch>
<VirtualHost 127.0.0.1:$port>
    ServerName 127.0.0.1
</VirtualHost>
<VirtualHost 127.0.0.1:$port>
    ServerName a.test
    SuexecUserGroup $ua_name $ua_name
    DocumentRoot $root
    ScriptAlias /cgi-bin/ $root/cgi-bin/
    ScriptAlias /gw/ $root/gw/
</VirtualHost>
<VirtualHost 127.0.0.1:$port>
    ServerName root.test
    SuexecUserGroup root root
    ScriptAlias /cgi-bin/ $root/rootvh/cgi-bin/
</VirtualHost>
<VirtualHost 127.0.0.1:$port>
    ServerName out.test
    SuexecUserGroup $ua_name $ua_name
    ScriptAlias /cgi-bin/ $outside/cgi-bin/
</VirtualHost>
CONF

my $ua = LWP::UserAgent->new(timeout => 20);
sub get { my ($host, $path) = @_; return $ua->get("http://127.0.0.1:$port$path", Host => $host) }
sub slurp { open my $fh, '<', $_[0] or return ''; local $/; return <$fh> }
# suexec's lines since $from, without their time stamps.
sub sx_lines { my $t = substr(slurp($sxlog), $_[0]); $t =~ s/^\[[^\]]+\]: //mg; return $t }

my %seen; # variant => { "host path" => [status, body, suexec lines] }
for my $variant ('cgid', 'cgiplus') {
    fresh_dir($dir);
    my @mods = qw(alias env include suexec userdir);
    push @mods, 'cgid' if $variant eq 'cgid';
    open my $fh, '>', "$dir/httpd.conf" or die;
    print $fh private_conf($dir, $port, \@mods, $variant eq 'cgiplus' ? "CGIplusCompat on\nLogLevel info cgiplus:debug\n$conf" : $conf);
    close $fh;
    ok t_cmp(private_start("$dir/httpd.conf", $port), 1, "$variant: httpd starts")
        or die "$variant: httpd did not start:\n" . slurp("$dir/error_log");
    for my $row (@ok) {
        my ($host, $path, $who) = @$row;
        my $from = -s $sxlog // 0;
        my $r = get($host, $path);
        my ($uid, $gid) = $who eq 'a' ? ($uid_a, $gid_a) : ($uid_b, $gid_b);
        ok t_cmp($r->code, 200, "$variant: $host$path: 200");
        ok t_cmp($r->content, qr/^uid=$uid gid=$gid groups=$gid foo=unset$/m,
                 "$variant: $host$path runs as its user, with suexec's environment");
        my $lines = sx_lines($from);
        ok t_cmp($lines, qr/^uid: \(~?\Q$uid\E\/\Q${tag}$who\E\) gid: \(\Q$gid\E\/\Q${tag}$who\E\) cmd: id\.sh$/m,
                 "$variant: suexec's log names the run");
        $seen{$variant}{"$host$path"} = $lines;
    }
    for my $row (@refusals) {
        my ($host, $path, $words) = @$row;
        my $from = -s $sxlog // 0;
        my $r = get($host, $path);
        ok t_cmp($r->code, 500, "$variant: $host$path refused: 500");
        my $lines = sx_lines($from);
        ok t_cmp($lines, $words, "$variant: $host$path: suexec's reason in its log");
        ok t_cmp($r->content !~ /uid=/ ? 1 : 0, 1, "$variant: $host$path: the script did not run");
        $seen{$variant}{"$host$path"} = $lines;
    }
    # SSI in a suEXEC virtual host: #exec cgi runs the script as its user;
    # #exec cmd, which suexec takes for a program's name, inserts nothing.
    my $r = get('a.test', '/ssi.shtml');
    ok t_cmp($r->code, 200, "$variant: a.test/ssi.shtml: 200");
    $seen{$variant}{ssi} = $r->content;
    if ($variant eq 'cgiplus') {
        my $elog = slurp("$dir/error_log");
        ok t_cmp($elog, qr/CGIPLUS1323: exec cmd "echo hi" in \S+ssi\.shtml not run: the document is under suEXEC \(\d+:\d+\)/,
                 'error log: why #exec cmd inserted nothing');
        for my $row (@refusals) {
            my ($host, $path, $words) = @$row;
            ok t_cmp($elog, qr/CGIPLUS2700: suEXEC refused to start \S+ as uid \d+ gid \d+ \(pool #\d+\): $words/,
                     "error log: the runner's refusal of $host$path in suexec's words");
        }
        ok t_cmp(scalar(() = $elog =~ /CGIPLUS1320: suEXEC refused to run \S+ as ~?\d+:\d+: .*; answering 500/g),
                 scalar(@refusals), 'error log: one line per refused request, with its client');
        # Persistent: one pool per user, each worker its user's.
        my @a = map { get('a.test', '/cgi-bin/plus.pl')->content } 1 .. 3;
        my @b = map { get('127.0.0.1', "/~$ub_name/cgi-bin/plus.pl")->content } 1 .. 3;
        my ($pa) = $a[0] =~ /pid=(\d+)/;
        my ($pb) = $b[0] =~ /pid=(\d+)/;
        ok t_cmp("@a", qr/^pid=$pa uid=$uid_a n=1\n pid=$pa uid=$uid_a n=2\n pid=$pa uid=$uid_a n=3$/,
                 'SuexecUserGroup: a persistent worker of its user serves every request');
        ok t_cmp("@b", qr/^pid=$pb uid=$uid_b n=1\n pid=$pb uid=$uid_b n=2\n pid=$pb uid=$uid_b n=3$/,
                 'UserDir: a persistent worker of its user serves every request');
        ok t_cmp($pa != $pb ? 1 : 0, 1, 'one pool per user');
        ok t_cmp(slurp("$dir/error_log"), qr/CGIPLUS2701: suEXEC for \S+\/plus\.pl: uid: \($uid_a\/\S+\) gid: \(\d+\/\S+\) cmd: plus\.pl/,
                 "the runner's suexec line for the persistent worker, in the error log too (2701, debug)");
        # The wrapper's settings reached the runner, and only the user's own
        # scripts ran: suexec's log has nothing more for the persistent worker.
        ok t_cmp(slurp("$dir/cgiplus-runner.conf"), qr/^suexec_docroot \Q$docroot\E$/m,
                 "the runner has the wrapper's document root ($wrapper -V)");
        ok t_cmp(slurp("$dir/error_log"), qr/CGIPLUS1322: suEXEC is enabled \(wrapper \Q$wrapper\E\): scripts under SuexecUserGroup run below \Q$docroot\E, UserDir scripts below ~user\/\S+, as their user after suexec's checks \(uid from \d+, gid from \d+\)/,
                 'httpd said so at start, with the settings (1322)');
        # WebSocket workers: suexec's checks before each start too (a real
        # upgrade over a bare socket: python3-websockets sets no Host).
        {
            my $from = -s $sxlog // 0;
            my $w = ws_py(<<'PY', $port) // {};
import sys
port = int(sys.argv[1])
out = {}
for name in ("wsid", "wsgrpw"):
    r = Raw("127.0.0.1", port, "/cgi-bin/%s.py" % name, headers={"Host": "a.test"})
    out[name] = r.status
    if r.status == 101:
        r.send(frame(1, b"id"))
        m = r.message()
        out[name + "_reply"] = m[1].decode() if isinstance(m, tuple) else str(m)
done(out)
PY
            ok t_cmp($w->{wsid} // 0, 101, 'WebSocket: an upgrade to a suEXEC script is accepted');
            ok t_cmp($w->{wsid_reply} // '', "uid=$uid_a gid=$gid_a",
                     'WebSocket: its worker runs as the virtual host\'s user');
            ok t_cmp($w->{wsgrpw} // 0, 500,
                     'WebSocket: a group-writable suEXEC script is refused: 500, no worker');
            ok t_cmp(sx_lines($from), qr{file is writable by others: \(\S+/cgi-bin/wsgrpw\.py\)},
                     'WebSocket: suexec\'s reason in its log');
            ok t_cmp(slurp("$dir/error_log"),
                     qr/CGIPLUS1320: suEXEC refused to run \S+wsgrpw\.py as \d+:\d+: .*; answering 500/,
                     'WebSocket: the refusal in the error log');
        }
    }
    private_stop("$dir/httpd.pid");
}

ok t_cmp($seen{cgiplus}{ssi} // '', qr/^before\|uid=$uid_a gid=$gid_a groups=$gid_a foo=unset\nafter$/,
         'SSI: #exec cgi ran as the user, #exec cmd inserted nothing');
ok t_cmp($seen{cgiplus}{ssi} // 'none', $seen{cgid}{ssi} // 'none', 'SSI: the same page as under mod_cgid');

# Side by side: the wrapper under mod_cgid and the runner under mod_cgiplus
# wrote the same lines for the same requests.
for my $row (@ok, @refusals) {
    my $k = "$row->[0]$row->[1]";
    ok t_cmp($seen{cgiplus}{$k} // 'none', $seen{cgid}{$k} // 'none',
             "$k: the same lines in suexec's log as the wrapper's");
}
