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
our @EXPORT_OK = qw(fpm_bin php_need php_fpm php_httpd php_stop);

# The php-fpm binary (Debian's /usr/sbin/php-fpmX.Y), undef without one.
sub fpm_bin { return (grep { -x } ('/usr/sbin/php-fpm', reverse sort glob('/usr/sbin/php-fpm*')))[0] }

# need()'s conditions: php-cgi, php-fpm, mod_proxy_fcgi, and %more.
sub php_need {
    my (%more) = @_;
    return { 'needs php-cgi and php-fpm (Debian packages php-cgi, php-fpm)' =>
                 (-x '/usr/bin/php-cgi' && fpm_bin()),
             'needs mod_proxy_fcgi' => -f libexec() . '/mod_proxy_fcgi.so', %more };
}

# A private php-fpm of $children static children on $dir/fpm.sock ($pool:
# more lines for its pool, private_fpm's); asserts that it listens (one
# test). Its pid.
sub php_fpm {
    my ($dir, $children, $pool) = @_;
    my ($bin, $sock) = (fpm_bin(), "$dir/fpm.sock");
    my $pid = private_fpm($bin, $dir, $sock, $children, $pool);
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

# Stops the httpd of $dir, then php-fpm $fpm; waitpid's answer for it.
sub php_stop {
    my ($dir, $fpm) = @_;
    private_stop("$dir/httpd.pid");
    kill 'TERM', $fpm;
    return waitpid($fpm, 0);
}

1;
