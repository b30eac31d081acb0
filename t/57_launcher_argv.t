# Issue 20, hole 3: a launcher (cgiplus-wsgi, cgiplus-psgi) takes its
# application only from its own file (the #! line and the .cgp lines), never
# from arguments a request adds: under CGIplusMode cgi a query without '='
# becomes argv, and `GET /app.cgp?/path/evil.py` ran evil.py. Also: the
# .cgp's directory comes last on sys.path, so a .py there cannot shadow a
# library module. Each request is made in plain-CGI mode and persistent mode.
use strict;
use warnings FATAL => 'all';
use Apache::Test;
use Apache::TestUtil;
use File::Path qw(make_path remove_tree);
use lib 't/htdocs/apps';
use AppTest qw(write_file curl url);

my $vars = Apache::Test::config()->{vars};
my $dir = "$vars->{t_logs}/launch";
my $evil = "$vars->{t_logs}/launch-evil";
my $good = "$vars->{t_logs}/launch-good";
remove_tree($dir, $evil, $good);
make_path($dir, "$evil/lib", "$good/lib", "$dir/shadow");
chmod 0755, $dir, $evil, "$evil/lib", $good, "$good/lib", "$dir/shadow";
my $wsgi = "$vars->{top_dir}/lib/python/cgiplus-wsgi";
my $psgi = "$vars->{top_dir}/lib/perl/cgiplus-psgi";

# What an attacker would run: each leaves a marker file and answers EVIL.
my $mark = "$evil/marks/ran";    # the workers' user writes it
make_path("$evil/marks");
chmod 0777, "$evil/marks";
my $evil_py = <<"PY";
open("$mark", "a").write(__file__ + "\\n")
def application(environ, start_response):
    start_response("200 OK", [("Content-Type", "text/plain")])
    return [b"EVIL\\n"]
app = application
PY
write_file("$evil/evil.py", $evil_py, 0644);
write_file("$evil/goodapp.py", $evil_py, 0644);      # shadows the good module
my $evil_pl = <<"PL";
open my \$m, '>>', '$mark'; print \$m __FILE__, "\\n"; close \$m;
sub { [200, ['Content-Type' => 'text/plain'], ["EVIL\\n"]] };
PL
write_file("$evil/evil.psgi", $evil_pl, 0644);
write_file("$evil/lib/GoodLib.pm", "package GoodLib; open my \$m, '>>', '$mark'; print \$m __FILE__; "
           . "sub name { 'EVIL' } 1;\n", 0644);

# The real applications.
write_file("$good/goodapp.py", <<'PY', 0644);
import sys
def app(environ, start_response):
    start_response("200 OK", [("Content-Type", "text/plain")])
    return [("GOOD argv=%d\n" % len(sys.argv)).encode()]
PY
write_file("$good/lib/GoodLib.pm", "package GoodLib; sub name { 'GOOD' } 1;\n", 0644);
write_file("$good/good.psgi", "use GoodLib; sub { [200, ['Content-Type' => 'text/plain'], [GoodLib::name(), \"\\n\"]] };\n", 0644);
for my $mode ('cgi-', '') {
    write_file("$dir/${mode}w.cgp", "#!$wsgi\napp goodapp:app\npath $good\n");
    write_file("$dir/${mode}p.cgp", "#!$psgi\napp $good/good.psgi\nlib $good/lib\n");
    # options on the #! line itself (Linux passes them as one argument)
    write_file("$dir/${mode}wl.cgp", "#!$wsgi --path $good goodapp:app\n");
    write_file("$dir/${mode}pl.psgi", "#!$psgi -I $good/lib\nuse GoodLib; "
               . "sub { [200, ['Content-Type' => 'text/plain'], [GoodLib::name(), \"\\n\"]] };\n");
}

# Queries as the runner splits them (on '+', %XX decoded) into argv.
my @wsgi_q = ("$evil/evil.py", "--path+$evil", "--path+$evil+goodapp:app", "--chdir+$evil+$evil/evil.py",
              "$evil/evil.py+--reload", "goodapp:app+--path+$evil", "%2D%2Dpath+$evil");
my @psgi_q = ("$evil/evil.psgi", "-I+$evil/lib", "-I$evil/lib", "-I+$evil/lib+$evil/evil.psgi",
              "--reload+$evil/evil.psgi");
my @cases;
for my $mode ('cgi-', '') {
    push @cases, map { ["${mode}w.cgp", $_, qr/^GOOD argv=2\n\z/] } @wsgi_q;   # launcher, file
    push @cases, map { ["${mode}wl.cgp", $_, qr/^GOOD argv=3\n\z/] } @wsgi_q[0, 1];  # and the #! words
    push @cases, map { ["${mode}p.cgp", $_, qr/^GOOD\n\z/] } @psgi_q;
    push @cases, map { ["${mode}pl.psgi", $_, qr/^GOOD\n\z/] } @psgi_q[0, 1];
}

plan tests => 2 * @cases + 14;

for my $c (@cases) {
    my ($file, $q, $want) = @$c;
    my ($code, $h, $body) = curl(url("/launch/$file?$q"));
    ok t_cmp("$code $body", qr/^200 /, "$file?$q: 200");
    ok t_cmp($body, $want, "$file?$q: the file's own application ran");
}
ok t_cmp(-e $mark ? do { local (@ARGV, $/) = $mark; <> } : '', '', 'no evil code ran');

# Without any query: the plain-CGI launchers still serve (sanity).
my ($code, $h, $body) = curl(url('/launch/cgi-w.cgp'));
ok t_cmp("$code $body", qr/^200 GOOD/, 'cgi-w.cgp without a query');

# The .cgp's directory comes last on sys.path: a colorsys.py next to it
# does not replace the standard library's, while a module found only
# there (shadowapp) still loads.
write_file("$dir/shadow/colorsys.py", "open('$mark', 'a').write('shadowed\\n')\nSHADOW = True\n", 0644);
write_file("$dir/shadow/shadowapp.py", <<'PY', 0644);
import colorsys
def app(environ, start_response):
    start_response("200 OK", [("Content-Type", "text/plain")])
    return [("shadow=%s\n" % getattr(colorsys, "SHADOW", False)).encode()]
PY
for my $mode ('cgi-', '') {
    write_file("$dir/shadow/${mode}s.cgp", "#!$wsgi\napp shadowapp:app\n");
    ($code, $h, $body) = curl(url("/launch/shadow/${mode}s.cgp"));
    ok t_cmp("$code $body", "200 shadow=False\n", "${mode}s.cgp: the standard library's colorsys, not the script directory's");
}
ok t_cmp(-e $mark ? do { local (@ARGV, $/) = $mark; <> } : '', '', 'nothing shadowed');

# A command line without a launcher file is refused under CGI: a shell
# wrapper's arguments cannot be told from a request's.
write_file("$dir/cgi-wrap.cgp", "#!/bin/sh\nexec $wsgi --path $good goodapp:app\n");
($code, $h, $body) = curl(url('/launch/cgi-wrap.cgp'));
ok t_cmp($code, 502, 'the command-line form under CGI is refused (the script exits before any output)');
my $log = do { local (@ARGV, $/) = "$vars->{t_logs}/error_log"; <> };
ok t_cmp($log, qr/CGIPLUS3100: cgiplus-wsgi: under CGI the application must come from a file/,
         'and says why');

# A script whose #! line names a wrapper of the launcher (not the launcher):
# its file is not a launcher file, and a query naming one elsewhere (an
# upload, say) must not be run in its place.
write_file("$evil/evilw.cgp", "#!$wsgi\napp evil:app\npath $evil\n", 0644);
write_file("$evil/evilp.cgp", "#!$psgi\napp $evil/evil.psgi\n", 0644);
write_file("$dir/wsgi-wrapper", "#!/bin/sh\nexec $wsgi \"\$@\"\n");
write_file("$dir/psgi-wrapper", "#!/bin/sh\nexec $psgi \"\$@\"\n");
chmod 0755, "$dir/wsgi-wrapper", "$dir/psgi-wrapper";
write_file("$dir/cgi-ww.cgp", "#!$dir/wsgi-wrapper\napp goodapp:app\npath $good\n");
write_file("$dir/cgi-pw.cgp", "#!$dir/psgi-wrapper\napp $good/good.psgi\nlib $good/lib\n");
for my $c (['cgi-ww.cgp', "$evil/evilw.cgp"], ['cgi-pw.cgp', "$evil/evilp.cgp"]) {
    ($code, $h, $body) = curl(url("/launch/$c->[0]?$c->[1]"));
    ok t_cmp("$code " . ($body =~ /EVIL/ ? 'EVIL' : ''), '502 ',
             "$c->[0]?$c->[1]: refused, the query's launcher file does not run");
}
$log = do { local (@ARGV, $/) = "$vars->{t_logs}/error_log"; <> };
my $n_wsgi = () = $log =~ /CGIPLUS3100: cgiplus-wsgi: under CGI the application must come from a file/g;
ok t_cmp($n_wsgi, 2, 'cgiplus-wsgi says why (once for cgi-wrap.cgp, once now)');
ok t_cmp($log =~ /CGIPLUS3152: cgiplus-psgi: under CGI the application must come from a file/ ? 1 : 0, 1,
         'cgiplus-psgi says why (3152)');
# The arguments a query made, ignored, are said (someone probing shows).
ok t_cmp($log, qr{CGIPLUS3200: cgiplus-wsgi: \S+/launch/cgi-w\.cgp: ignoring \d+ argument\(s\) after it \(a request's query makes them},
         'cgiplus-wsgi says it ignored the arguments (3200)');
ok t_cmp($log, qr{CGIPLUS3250: cgiplus-psgi: \S+/launch/cgi-p\.cgp: ignoring \d+ argument\(s\) after it \(a request's query makes them},
         'cgiplus-psgi says it ignored the arguments (3250)');
ok t_cmp(-e $mark ? do { local (@ARGV, $/) = $mark; <> } : '', '', 'no evil code ran through a wrapper');
