# A php pool keeps its FastCGI connection to php-cgi from request to
# request, and whatever a PHP script starts inherits it (php-cgi does not
# close it on exec). A process a script leaves behind (here a Perl one
# that a hostile script starts; a background job of a harmless one holds
# it the same way) must never answer another client's request on it.
# Request ids guard that (docs/DESIGN.md, "FastCGI workers"), but records
# of id 1 passed for any request, for applications that answer 1 whatever
# they are asked: the leftover answered the next request, another
# script's, with "1", and that client got its page. Now id 1 passes only
# from an application that ended its first request so (the runner
# learns it: CGP_TS_FCGI_ONE); t/59_fcgi_oneshot.t keeps such an one working.
# Only this variant is closed: a leftover that peeks at the next request's
# id (MSG_PEEK) still answers it first (docs/DESIGN.md, "FastCGI workers").
# On the direct path (/php1/) and relayed (/phpr/): one pool, one worker.
use strict;
use warnings FATAL => 'all';
use Apache::Test;
use Apache::TestUtil;
use Time::HiRes qw(sleep);
use lib 't/htdocs/apps';
use AppTest qw(curl url);

plan tests => 10, need { 'needs php-cgi (Debian package php-cgi)' => -x '/usr/bin/php-cgi' };

my $vars = Apache::Test::config()->{vars};

sub slurp { open my $fh, '<', $_[0] or return ''; local $/; return <$fh> // '' }

for my $pre ('/php1/', '/phpr/') {
    my $log = "$vars->{t_logs}/leftover_inject" . ($pre =~ s{/}{}gr) . '.log';
    open my $fh, '>', $log or die "$log: $!";
    close $fh;
    chmod 0666, $log;
    # the pool's worker, warm (the leftover then waits on a kept connection)
    curl(url("${pre}leftover_victim.php"));
    my ($code, undef, $body) = curl(url("${pre}leftover_inject.php?log=$log"));
    ok t_cmp("$code $body", "200 left a process behind\n", "$pre: the hostile script answers");
    my $t = 0;
    sleep 0.1 while slurp($log) !~ /\n/ && ($t += 0.1) < 60;
    ok t_cmp(slurp($log), "holding the connection\n", "$pre: its leftover holds php-cgi's FastCGI connection");
    ($code, undef, $body) = curl(url("${pre}leftover_victim.php"));
    ok t_cmp($body =~ /INJECTED/ ? 'the leftover\'s page' : 'not the leftover\'s',
             'not the leftover\'s', "$pre: the next client does not get what the leftover wrote ($code)");
    $t = 0;
    sleep 0.1 while slurp($log) !~ /answered/ && ($t += 0.1) < 60;
    ok t_cmp(slurp($log) =~ /answered/ ? 1 : 0, 1, "$pre: (the leftover did answer it)");
    ($code, undef, $body) = curl(url("${pre}leftover_victim.php"));
    ok t_cmp("$code $body", "200 the victim's own page\n", "$pre: and the pool serves on");
}
