# An unmodified CGI script that fails under an engine is answered as
# mod_cgid answers it (the reference, serving the same files in the same
# httpd): a die, an exception or a compile error before any output, an exit
# with no output, a header cut short, a malformed header are httpd's own
# 500 (its page, or the scope's `ErrorDocument 500`, a page or a CGI
# script), not a body of the engine's nor 502, with and without
# CGIplusCompat in the scope; a script that fails after its output began
# ends with what it wrote. The script's error is in the error log, naming
# it, with "End of script output before headers"; the engine goes on, and
# the next request sees nothing of the failed one. A header that mod_cgid
# reads although it is odd is read as it reads it.
use strict;
use warnings FATAL => 'all';
use Apache::Test;
use Apache::TestUtil;
use lib 't/htdocs/apps';
use AppTest qw(curl url);

my %cases = (
    perl => [qw(die.pl compile.pl exit0.pl exit1.pl hdronly.pl hdrdie.pl late.pl badhdr.pl crlf.pl oddstatus.pl)],
    py   => [qw(raise.py syntax.py exit0.py exit1.py exitmsg.py hdronly.py hdrraise.py late.py badhdr.py)],
);
my @scopes = ('', 'ed', 'edc');
my $n_cases = @{ $cases{perl} } + @{ $cases{py} };

plan tests => 2 + 3 + $n_cases * @scopes + $n_cases + 12 + 2 * 2;

my $logf = Apache::Test::config()->{vars}{t_logs} . '/error_log';
sub log_from { open my $fh, '<', $logf or return ''; seek $fh, $_[0], 0; local $/; <$fh> // '' }

# "status type\nbody" of one request
sub answer {
    my ($code, $h, $body) = curl(url($_[0]));
    return "$code " . ($h->{'content-type'} // '-') . "\n$body";
}

# The engine's pid, from ok.<ext>, whose body must be only its own.
my %pid;
sub ok_pid {
    my ($lang, $prefix) = @_;
    my $ext = $lang eq 'perl' ? 'pl' : 'py';
    my ($code, undef, $body) = curl(url("/$prefix/errors/ok.$ext"));
    return $code == 200 && $body =~ /\Aok (\d+)\n\z/ ? $1 : "($code) $body";
}

for my $lang (qw(perl py)) {
    $pid{$lang} = ok_pid($lang, "e$lang");
    ok t_cmp($pid{$lang} =~ /\A\d+\z/ ? 1 : 0, 1, "the $lang engine answers");
}

# The reference, in each scope: httpd's 500 page, the site's page, the
# error script's page.
ok t_cmp(answer('/cgidperl/errors/die.pl'), qr{\A500 text/html; charset=iso-8859-1\n.*<h1>Internal Server Error</h1>}s,
         "mod_cgid, no ErrorDocument: httpd's 500 page");
ok t_cmp(answer('/cgidperled/errors/die.pl'), "500 text/html\n<p>the site's own 500 page</p>\n",
         'mod_cgid, ErrorDocument 500 to a page: that page');
ok t_cmp(answer('/cgidperledc/errors/die.pl'), "500 text/html\n<p>errdoc status=500 script=die.pl</p>\n",
         'mod_cgid, ErrorDocument 500 to a CGI script: its page');

# Each failure, in each scope: as mod_cgid answers it (with that scope's
# ErrorDocument), under the engine without and with CGIplusCompat. And a
# header mod_cgid reads although it is odd (lines ending in "\r\r\n", a
# Status it passes on): read as mod_cgid reads it.
for my $lang (qw(perl py)) {
    for my $script (@{ $cases{$lang} }) {
        for my $ed (@scopes) {
            my $want = answer("/cgid$lang$ed/errors/$script");
            my $got = answer("/e$lang$ed/errors/$script");
            my $compat = answer("/e${lang}compat$ed/errors/$script");
            my $where = $ed eq '' ? 'no ErrorDocument' : $ed eq 'ed' ? 'ErrorDocument 500 to a page'
                      : 'ErrorDocument 500 to a CGI script';
            ok t_cmp("$got\n--\n$compat", "$want\n--\n$want",
                     "$lang $script, $where: as under mod_cgid, without and with CGIplusCompat");
        }
    }
}

# The engine lived through all of it, and a failure leaves nothing for the
# next request: each failing script, then ok, whose body is its own alone.
for my $lang (qw(perl py)) {
    for my $script (@{ $cases{$lang} }) {
        curl(url("/e$lang/errors/$script"));
        ok t_cmp(ok_pid($lang, "e$lang"), $pid{$lang}, "$lang $script: the same engine answers next, with its own body only");
    }
}

# What the failure before any output says in the error log: the script's
# error and its name, and the end of its output before the header.
# (Each line is written as the request is answered, the script's stderr
# as it comes: polled until every expected line is there, 30 s at most.)
sub logged {
    my ($url, @want) = @_;
    my $off = -s $logf;
    my ($code) = curl(url($url));
    my $text = '';
    for (1 .. 300) {
        $text = log_from($off);
        last unless grep { $text !~ $_ } @want;
        select undef, undef, undef, 0.1;
    }
    return ($code, $text);
}
my @die = (qr/errors-stderr-marker before the die/, qr{errors/die\.pl died: errors-die-marker},
           qr{CGIPLUS1324: End of script output before headers: \S*/errors/die\.pl .*answering 500},
           qr{CGIPLUS3234: cgiplus-engine-perl: \S*/errors/die\.pl died: errors-die-marker});
my ($code, $text) = logged('/eperl/errors/die.pl', @die);
ok t_cmp($code, 500, 'perl die.pl: 500');
ok t_cmp($text, $die[0], "perl die.pl: its stderr is logged");
ok t_cmp($text, $die[1], 'perl die.pl: its die message, naming it');
ok t_cmp($text, $die[2], 'perl die.pl: "End of script output before headers", naming it');
ok t_cmp($text, $die[3], "perl die.pl: the engine's own line (3234), naming it");
my $compile = qr{errors/compile\.pl: .*Global symbol "\$errors_undeclared" requires explicit package name};
my $c3233 = qr{CGIPLUS3233: cgiplus-engine-perl: \S*/errors/compile\.pl: Global symbol};
($code, $text) = logged('/eperl/errors/compile.pl', $compile, $c3233, qr/End of script output before headers/);
ok t_cmp($text, $compile, "perl compile.pl: perl's compile error, naming it");
ok t_cmp($text, $c3233, "perl compile.pl: the engine's own line (3233), naming it");
my @raise = (qr/errors-stderr-marker before the raise.*Traceback.*RuntimeError: errors-raise-marker/s,
             qr{CGIPLUS1324: End of script output before headers: \S*/errors/raise\.py .*answering 500},
             qr{CGIPLUS3214: cgiplus-engine-python: /\S*/errors/raise\.py raised RuntimeError});
($code, $text) = logged('/epy/errors/raise.py', @raise);
ok t_cmp($text, $raise[0], 'py raise.py: its stderr and its traceback are logged');
ok t_cmp($text, $raise[1], 'py raise.py: "End of script output before headers", naming it');
# (it named the script's sys.path, a list, for the script)
ok t_cmp($text, $raise[2], "py raise.py: the engine's own line (3214), naming the script");
my $syntax = qr{File "\S*/errors/syntax\.py", line 4.*SyntaxError}s;
my $c3212 = qr{CGIPLUS3212: cgiplus-engine-python: /\S*/errors/syntax\.py: does not compile};
($code, $text) = logged('/epy/errors/syntax.py', $syntax, $c3212, qr/End of script output before headers/);
ok t_cmp($text, $syntax, "py syntax.py: the SyntaxError as the interpreter reports it (file, line)");
ok t_cmp($text, $c3212, "py syntax.py: the engine's own line (3212), naming it");

for my $lang (qw(perl py)) {
    ok t_cmp(ok_pid($lang, "e$lang"), $pid{$lang}, "$lang: one engine served every request");
    ok t_cmp(ok_pid($lang, "e${lang}compatedc"), $pid{$lang}, "$lang: the CGIplusCompat and ErrorDocument scopes too");
}
