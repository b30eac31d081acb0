# A WSGI application's 200 with a Location goes out as it is, as under
# mod_wsgi (daemon mode) and gunicorn: a framework's 200 that names a
# resource. mod_wsgi redirects internally for a local path ("/...") only,
# as mod_cgi does, and so does cgiplus-wsgi. Before, httpd's CGI rule made
# any other Location a 302 with httpd's page. cgiplus-wsgi marks such a
# response with Script-Control: X-location-as-is, which never reaches the
# client. On the direct path, relayed, and in plain-CGI mode.
use strict;
use warnings FATAL => 'all';
use Apache::Test;
use Apache::TestUtil;
use File::Path qw(make_path remove_tree);
use lib 't/lib', 't/htdocs/apps';
use AppTest qw(write_file curl url);

my $vars = Apache::Test::config()->{vars};
my $dir = "$vars->{t_logs}/launch/location";
my $wsgi = "$vars->{top_dir}/lib/python/cgiplus-wsgi";
remove_tree($dir);
make_path("$dir/relayed");
chmod 0755, $dir, "$dir/relayed";

# ?STATUS+LOCATION: that status and Location, a body of its own; /target:
# what a local Location leads to.
write_file("$dir/locapp.py", <<'PY', 0644);
import urllib.parse
def app(environ, start_response):
    if environ.get("PATH_INFO") == "/target":
        start_response("200 OK", [("Content-Type", "text/plain")])
        return [b"the target\n"]
    status, _, loc = urllib.parse.unquote_plus(environ.get("QUERY_STRING", "")).partition(" ")
    start_response(status + " Whatever", [("Content-Type", "text/plain"), ("Location", loc)])
    return [b"located\n"]
PY
for my $d ($dir, "$dir/relayed") {
    write_file("$d/l.cgp", "#!$wsgi\napp locapp:app\npath $dir\n");
    write_file("$d/cgi-l.cgp", "#!$wsgi\napp locapp:app\npath $dir\n");
}

my @where = (['direct', '/launch/location/l.cgp'], ['relayed', '/launch/location/relayed/l.cgp'],
             ['plain CGI', '/launch/location/cgi-l.cgp']);
plan tests => 6 * @where;

sub got {
    my ($code, $h, $body) = @_;
    return join ' | ', $code, $h->{location} // '(no Location)', $body;
}

for my $w (@where) {
    my ($how, $path) = @$w;
    my @r = curl(url("$path?200+http://example.org/x"));
    ok t_cmp(got(@r), "200 | http://example.org/x | located\n", "$how: a 200 with an absolute Location, as it is");
    ok t_cmp($r[1]{'script-control'} // 'none', 'none', "$how: Script-Control never reaches the client");
    ok t_cmp(got(curl(url("$path?200+other/x"))), "200 | other/x | located\n",
             "$how: a 200 with a relative Location, as it is");
    ok t_cmp(got(curl(url("$path?200+$path/target"))), "200 | (no Location) | the target\n",
             "$how: a 200 with a local path: redirected internally, as mod_wsgi and mod_cgi do");
    ok t_cmp(got(curl(url("$path?302+http://example.org/y"))), "302 | http://example.org/y | located\n",
             "$how: a 302 as it is");
    ok t_cmp(got(curl(url("$path?201+http://example.org/z"))), "201 | http://example.org/z | located\n",
             "$how: a 201 as it is");
}
