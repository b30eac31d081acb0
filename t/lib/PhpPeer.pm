package PhpPeer;
# The set-up of the tests that compare a php-cgi pool (CGIplusEngine php)
# with its peer, php-fpm behind mod_proxy_fcgi (Debian's php8.2-fpm.conf
# way), in one private httpd: a private php-fpm on a UNIX socket in the
# test's directory, started and stopped by its pid, and the httpd with the
# modules both sides need. Each test states only its scripts, its virtual
# hosts and its assertions.
use strict;
use warnings;
use Apache::Test qw(ok);
use Apache::TestUtil qw(t_cmp);
use Exporter 'import';
use lib 't/htdocs/apps';
use PrivateHttpd qw(private_conf private_start private_stop private_fpm libexec);
use AppTest qw(write_file);
our @EXPORT_OK = qw(fpm_bin php_need php_fpm php_httpd php_four_sides php_stop);

# The php-fpm binary (Debian's /usr/sbin/php-fpmX.Y), undef without one.
sub fpm_bin { return (grep { -x } ('/usr/sbin/php-fpm', reverse sort glob('/usr/sbin/php-fpm*')))[0] }

# need()'s conditions: php-cgi, php-fpm, mod_proxy_fcgi, and %more.
sub php_need {
    my (%more) = @_;
    return { 'needs php-cgi and php-fpm (Debian packages php-cgi, php-fpm)' =>
                 (-x '/usr/bin/php-cgi' && fpm_bin()),
             'needs mod_proxy_fcgi' => -f libexec() . '/mod_proxy_fcgi.so', %more };
}

# php-fpm started here, by this process (pid => $$): stopped at exit
# should the test die before php_stop.
my %fpm;
END {
    local $?;    # the test's exit status
    $fpm{$_} == $$ and kill 'TERM', $_ for keys %fpm;
}

# A private php-fpm of $children static children on $dir/fpm.sock ($pool:
# more lines for its pool, private_fpm's); asserts that it listens (one
# test). Its pid.
sub php_fpm {
    my ($dir, $children, $pool) = @_;
    my ($bin, $sock) = (fpm_bin(), "$dir/fpm.sock");
    my $pid = private_fpm($bin, $dir, $sock, $children, $pool);
    $fpm{$pid} = $$;
    ok t_cmp(-S $sock ? 1 : 0, 1, "a private php-fpm ($bin, pid $pid) listens on $sock");
    return $pid;
}

# $dir/httpd.conf on $port: mod_alias, mod_mime (Debian's types), mod_proxy
# and mod_proxy_fcgi, the modules in @$mods (names as in mod_NAME.so), a
# Listen for each of @$listen, then $conf; started, and asserted so (one
# test, named $what).
sub php_httpd {
    my ($dir, $port, $listen, $mods, $conf, $what) = @_;
    my $lib = libexec();
    my $load = join '', map { "LoadModule ${_}_module $lib/mod_$_.so\n" }
                            qw(alias mime), @$mods, qw(proxy proxy_fcgi);
    my $lines = join '', map { "Listen 127.0.0.1:$_\n" } @$listen;
    write_file("$dir/httpd.conf",
               private_conf($dir, $port, [], "${load}TypesConfig /etc/mime.types\n$lines$conf"), 0644);
    ok t_cmp(private_start("$dir/httpd.conf", $port), 1, $what);
}

# One application walked four ways, a virtual host a side of %$port, its
# PHP in <Directory $app>: pool (a php-cgi pool of 2 workers), poolr (the
# same relayed: CGIplusDirect off), dropin (mod_fcgid's PHP set-up on the
# fcgid-script drop-in, 2 processes) and fpm (the private php-fpm, as
# Debian's php8.2-fpm.conf); mod_cgiplus's status at /cgiplus-status.
# php_httpd's, with @$mods, $vhost->($side) (a side's own lines, if any)
# and the server's lines $conf.
sub php_four_sides {
    my ($dir, $port, $app, $mods, $vhost, $conf) = @_;
    $vhost //= sub { '' };
    my $pool = "        AddHandler cgiplus-script .php\n        CGIplusEngine php\n        CGIplusMaxWorkers 2\n";
    my %handler = (
        pool => $pool,
        poolr => "$pool        CGIplusDirect off\n",
        dropin => "        Options +ExecCGI\n        AddHandler fcgid-script .php\n"
                . "        FcgidWrapper /usr/bin/php-cgi .php\n",
        fpm => "        SetEnvIfNoCase ^Authorization\$ \"(.+)\" HTTP_AUTHORIZATION=\$1\n"
             . "        <FilesMatch \".+\\.ph(?:ar|p|tml)\$\">\n"
             . "            SetHandler \"proxy:unix:$dir/fpm.sock|fcgi://localhost\"\n        </FilesMatch>\n",
    );
    my $vhosts = join '', map { "<VirtualHost 127.0.0.1:$port->{$_}>\n" . $vhost->($_)
                                . "    <Directory $app>\n$handler{$_}    </Directory>\n</VirtualHost>\n" }
                          qw(dropin fpm pool poolr);
    php_httpd($dir, $port->{pool}, [map { $port->{$_} } qw(poolr dropin fpm)], ['setenvif', @$mods],
              <<"CONF", 'a private httpd with php pools, the drop-in and php-fpm');
FcgidMaxProcessesPerClass 2
$conf<Location /cgiplus-status>
    SetHandler cgiplus-status
</Location>
$vhosts
CONF
}

# Stops the httpd of $dir, then php-fpm $fpm; waitpid's answer for it.
sub php_stop {
    my ($dir, $fpm) = @_;
    delete $fpm{$fpm};
    private_stop("$dir/httpd.pid");
    kill 'TERM', $fpm;
    return waitpid($fpm, 0);
}

1;
