package KindsHttpd;
# One private httpd that serves a script in every kind mod_cgiplus has and
# in the peers they replace (mod_cgid, php-fpm through mod_proxy_fcgi), by
# URL prefix, all from one directory of scripts (t/3j_cgi_content_length.t,
# t/3k_cgi_big_header.t): /cgid/ mod_cgid, /fpm/ a private php-fpm,
# /eperl/ /epy/ the engines, /php/ CGIplusEngine php, /native/ (/nativest/)
# CGIplus scripts, /plain/ plain CGI, /fcgi/ CGIplusMode fastcgi, /fcgid/
# the fcgid-script drop-in; a prefix ending in "r" (/eperlr/, /nativer/...)
# the same relayed. The CGIplusCompat scopes differ by test: its own.
use strict;
use warnings;
use Apache::Test ();
use PrivateHttpd qw(private_conf private_start private_stop private_fpm private_dir libexec);
use FreePort qw(free_ports);
use AppTest qw(write_file);
use Exporter 'import';
our @EXPORT_OK = qw(kinds_need kinds_fpm_bin kinds_dir kinds_start kinds_stop);

my $vars = Apache::Test::config()->{vars};

sub kinds_fpm_bin { (grep { -x } ('/usr/sbin/php-fpm', reverse sort glob('/usr/sbin/php-fpm*')))[0] }

# need's conditions
sub kinds_need {
    my $lib = libexec();
    return { 'needs php-cgi and php-fpm (Debian packages php-cgi, php-fpm)' =>
                 (-x '/usr/bin/php-cgi' && kinds_fpm_bin()),
             'needs mod_proxy_fcgi and mod_cgid' =>
                 (-f "$lib/mod_proxy_fcgi.so" && -f "$lib/mod_cgid.so"),
             'needs FCGI (libfcgi-perl)' => !system('perl -MFCGI -e1 2>/dev/null') };
}

# A fresh private directory t/logs/$name, its scripts' directory and a
# port: ($dir, "$dir/s", $port).
sub kinds_dir {
    my ($name) = @_;
    my $dir = private_dir($name);
    my ($port) = free_ports(1);
    my $d = "$dir/s";
    mkdir $d;
    chmod 0755, $d;
    return ($dir, $d, $port);
}

# Starts the private php-fpm (one child), then httpd with the kinds and
# $own (the test's CGIplusCompat scopes): (php-fpm's pid, whether its
# socket is there, whether httpd answers).
sub kinds_start {
    my ($dir, $d, $port, $own) = @_;
    my $lib = libexec();
    my $top = $vars->{top_dir};
    my $fpm = private_fpm(kinds_fpm_bin(), $dir, "$dir/fpm.sock", 1);
    my $fpm_up = -S "$dir/fpm.sock" ? 1 : 0;
    write_file("$dir/httpd.conf", private_conf($dir, $port, [], <<"CONF"), 0644);
LoadModule alias_module $lib/mod_alias.so
LoadModule mime_module $lib/mod_mime.so
LoadModule cgid_module $lib/mod_cgid.so
LoadModule proxy_module $lib/mod_proxy.so
LoadModule proxy_fcgi_module $lib/mod_proxy_fcgi.so
TypesConfig /etc/mime.types
ScriptSock $dir/cgid.sock
AliasMatch ^/[a-z]+/(.*)\$ $d/\$1
<Directory $d>
    Require all granted
    Options +ExecCGI
    CGIplusMaxWorkers 1
</Directory>
<Location /cgid/>
    SetHandler cgi-script
</Location>
$own
<Location /plain/>
    SetHandler cgiplus-script
    CGIplusMode cgi
</Location>
<LocationMatch ^/eperlr?/>
    SetHandler cgiplus-script
    CGIplusEngine $top/lib/perl/cgiplus-engine-perl
</LocationMatch>
<LocationMatch ^/epyr?/>
    SetHandler cgiplus-script
    CGIplusEngine $top/lib/python/cgiplus-engine-python
</LocationMatch>
<LocationMatch ^/phpr?/>
    CGIplusEngine php
</LocationMatch>
<Location /fpm/>
    SetHandler "proxy:unix:$dir/fpm.sock|fcgi://localhost"
</Location>
<LocationMatch ^/native(r|st)?/>
    SetHandler cgiplus-script
    CGIplusMode cgiplus
</LocationMatch>
<LocationMatch ^/fcgir?/>
    SetHandler cgiplus-script
    CGIplusMode fastcgi
</LocationMatch>
<Location /fcgid/>
    SetHandler fcgid-script
</Location>
<LocationMatch ^/[a-z]+r/>
    CGIplusDirect off
</LocationMatch>
CONF
    return ($fpm, $fpm_up, private_start("$dir/httpd.conf", $port));
}

sub kinds_stop {
    my ($dir, $fpm) = @_;
    private_stop("$dir/httpd.pid");
    kill 'TERM', $fpm;
    waitpid $fpm, 0;
}

1;
