package SideBySide;
# Real applications served two ways side by side (a reference, mod_cgid,
# and mod_cgiplus): the httpd.conf that serves them so, the git repository
# the tests serve, and the page-by-page comparison of what both answer.
use strict;
use warnings;
use Apache::Test qw(ok);
use Apache::TestUtil qw(t_cmp t_debug);
use Exporter 'import';
use JSON::PP ();
use lib 't/htdocs/apps';
use AppTest qw(curl);
use PrivateHttpd qw(private_conf);
our @EXPORT_OK = qw(git_fixture same_pages pool_of walk same_answer same_pairs engine_served_all
                    php_pool_served_all php_workers cgid_pair_conf cgid_engine_conf same_as_cgid);

# The httpd.conf (private_conf's, in $dir) of one httpd serving an
# application two ways, a virtual host a side of %$port: ref (mod_cgid;
# the port private_conf listens on) and ours (the same, with CGIplusCompat
# on in a <Location> of each path of @{$o{compat}}), both with /status.
# %o: mods, the modules besides mod_cgid, mod_alias and mod_mime; grant,
# directories open to all; global, more server-wide lines; vhost, a sub
# given the side ('ref' or 'ours') returning its virtual host's lines.
sub cgid_pair_conf {
    my ($dir, $port, %o) = @_;
    my $grant = join '', map { "<Directory $_>\n    Require all granted\n</Directory>\n" } @{ $o{grant} // [] };
    my $vhosts = '';
    for my $side (qw(ref ours)) {
        my $compat = join '', map { "    <Location $_>\n        CGIplusCompat on\n    </Location>\n" }
                              $side eq 'ours' ? @{ $o{compat} } : ();
        $vhosts .= "<VirtualHost 127.0.0.1:$port->{$side}>\n" . $o{vhost}->($side) . $compat
                   . "    <Location /status>\n        SetHandler cgiplus-status\n    </Location>\n</VirtualHost>\n";
    }
    return private_conf($dir, $port->{ref}, [qw(cgid alias mime), @{ $o{mods} // [] }], <<"CONF");
ScriptSock $dir/cgid.sock
Listen 127.0.0.1:$port->{ours}
TypesConfig /etc/mime.types
$grant@{[ $o{global} // '' ]}
$vhosts
CONF
}

# The httpd.conf (private_conf's, in $dir) of one httpd serving the CGI
# scripts @$scripts of $apps, each at /NAME, three ways, a virtual host a
# side of %$port: cgid (mod_cgid), compat (the same with CGIplusCompat on;
# the port private_conf listens on) and engine (CGIplusEngine $engine, one
# process for them all). %o: file, a sub given (side, NAME) returning the
# file served at /NAME (default $apps/NAME); grant, more directories open
# to all, with ExecCGI; mods, modules besides mod_alias and mod_cgid;
# scope, more lines of every side's scope; engine, more lines of the
# engine's; global, more server-wide lines.
sub cgid_engine_conf {
    my ($dir, $port, $apps, $scripts, $engine, %o) = @_;
    my $file = $o{file} // sub { "$apps/$_[1]" };
    my $alias = sub { my ($side) = @_; join '', map { "    Alias /$_ " . $file->($side, $_) . "\n" } @$scripts };
    my $where = '<LocationMatch "^/(?:' . join('|', map { quotemeta } @$scripts) . ')(?:/|$)">';
    my $scope = $o{scope} // '';
    my $grant = join '', map { "<Directory $_>\n    Require all granted\n    Options +ExecCGI\n</Directory>\n" }
                         $apps, @{ $o{grant} // [] };
    return private_conf($dir, $port->{compat}, [qw(alias cgid), @{ $o{mods} // [] }], <<"CONF");
ScriptSock $dir/cgid.sock
Listen 127.0.0.1:$port->{cgid}
Listen 127.0.0.1:$port->{engine}
$grant@{[ $o{global} // '' ]}
<VirtualHost 127.0.0.1:$port->{cgid}>
@{[ $alias->('cgid') ]}    $where
        SetHandler cgi-script
$scope    </LocationMatch>
</VirtualHost>
<VirtualHost 127.0.0.1:$port->{compat}>
    CGIplusCompat on
@{[ $alias->('compat') ]}    $where
        SetHandler cgi-script
$scope    </LocationMatch>
</VirtualHost>
<VirtualHost 127.0.0.1:$port->{engine}>
@{[ $alias->('engine') ]}    $where
        SetHandler cgiplus-script
        CGIplusEngine $engine
        CGIplusMaxWorkers 1
$scope@{[ $o{engine} // '' ]}    </LocationMatch>
</VirtualHost>
CONF
}

# Six assertions a step of @$steps ([path, curl arguments, 'JAR' for the
# side's cookie jar]) and a side of compat and engine: mod_cgid's status
# (cgid's), its Content-Type, Location, Set-Cookie, the headers named
# $own and its body, as $fetch->($side, path, arguments) gives them
# ({code, type, loc, cookie, own, body}).
sub same_as_cgid {
    my ($steps, $fetch, $own) = @_;
    for my $s (@$steps) {
        my ($path, @args) = @$s;
        my $what = join ' ', (grep { $_ ne 'JAR' } @args), $path;
        my $ref = $fetch->('cgid', $path, @args);
        for my $who (qw(compat engine)) {
            my $got = $fetch->($who, $path, @args);
            ok t_cmp($got->{code}, $ref->{code} || 'an answer from mod_cgid', "$who, $what: mod_cgid's status ($ref->{code})");
            ok t_cmp($got->{type}, $ref->{type}, "$who, $what: the same Content-Type");
            ok t_cmp($got->{loc}, $ref->{loc}, "$who, $what: the same Location");
            ok t_cmp($got->{cookie}, $ref->{cookie}, "$who, $what: the same Set-Cookie");
            ok t_cmp($got->{own}, $ref->{own}, "$who, $what: the same $own");
            # the first line that differs, shown last (CI's summary keeps
            # the last lines before "not ok"), not the whole page
            my $same = t_cmp($got->{body} eq $ref->{body} ? 'same' : 'differ', 'same',
                             "$who, $what: the same body (" . length($ref->{body}) . ' bytes)');
            print STDOUT body_diff($ref->{body}, $got->{body}, $who) unless $same;
            ok $same;
        }
    }
}

# Comment lines naming the first line where $got differs from $ref.
sub body_diff {
    my ($ref, $got, $who) = @_;
    my @r = split /\n/, $ref, -1;
    my @g = split /\n/, $got, -1;
    my $i = 0;
    $i++ while $i < @r && $i < @g && $r[$i] eq $g[$i];
    return map { "# $_\n" } "bodies differ from line " . ($i + 1) . " ($who " . length($got) . ' bytes):',
        'mod_cgid: ' . substr($r[$i] // '(end)', 0, 200), "$who: " . substr($g[$i] // '(end)', 0, 200);
}

# A repository in $dir/work with fixed dates (so relative ages do not
# move): README and src/main.c, two commits, the second with a non-ASCII
# message, an annotated tag v1; cloned bare to $bare.
sub git_fixture {
    my ($dir, $bare) = @_;
    my %env = (GIT_AUTHOR_NAME => 'Ann Author', GIT_AUTHOR_EMAIL => 'ann@example.org',
               GIT_COMMITTER_NAME => 'Ann Author', GIT_COMMITTER_EMAIL => 'ann@example.org',
               HOME => $dir, GIT_CONFIG_NOSYSTEM => 1);
    my $git = sub {
        my ($date, @args) = @_;
        local @ENV{keys %env} = values %env;
        local @ENV{qw(GIT_AUTHOR_DATE GIT_COMMITTER_DATE)} = ($date, $date);
        system('git', '-C', "$dir/work", @args) == 0 or die "git @args failed\n";
    };
    my $put = sub {
        open my $fh, '>', "$dir/work/$_[0]" or die "$_[0]: $!";
        print $fh $_[1];
        close $fh;
    };
    mkdir "$dir/work";
    mkdir "$dir/work/src";
    $git->('2020-01-01T00:00:00Z', 'init', '-q', '-b', 'master');
    $put->('README', "first line\n");
    $put->('src/main.c', "int main(void) { return 0; }\n");
    $git->('2020-01-02T10:00:00Z', 'add', '.');
    $git->('2020-01-02T10:00:00Z', 'commit', '-q', '-m', 'first commit');
    $put->('README', "first line\nsecond line \xc3\xa9\n");
    $git->('2020-02-03T11:00:00Z', 'commit', '-q', '-a', '-m', "second commit, caf\xc3\xa9");
    $git->('2020-02-03T11:00:00Z', 'tag', '-a', '-m', 'version one', 'v1');
    system('git', 'clone', '-q', '--bare', "$dir/work", $bare) == 0 or die "clone\n";
}

# Three assertions a page: mod_cgiplus's status is the reference's (which
# must be an answer, not a server error: a page both sides fail proves
# nothing), the same content type, the same body. $fetch->($side, $page)
# gives (status, type, body) with what may differ set aside; $side is 'ref'
# or 'ours'.
sub same_pages {
    my ($pages, $fetch) = @_;
    for my $page (@$pages) {
        my @r = $fetch->('ref', $page);
        # mod_cgid's 503: its daemon's socket was full (a loaded machine),
        # its own failure, not the page's: asked once more (pages are reads)
        @r = $fetch->('ref', $page) if $r[0] == 503;
        my @o = $fetch->('ours', $page);
        ok t_cmp("$o[0]" . ($r[0] >= 200 && $r[0] < 500 ? '' : ' (the reference failed)'),
                 "$r[0]", "$page: the reference's status ($r[0])");
        ok t_cmp($o[1], $r[1], "$page: the same content type");
        ok t_cmp($o[2] eq $r[2] ? 'same' : 'different', 'same',
                 "$page: the same body (" . length($r[2]) . ' bytes)');
    }
}

# The first pool running $script on the status page at $url (JSON);
# undef: none, or no page.
sub pool_of {
    my ($url, $script) = @_;
    my $st = eval { JSON::PP::decode_json((curl("$url?json"))[2]) } // {};
    my ($pool) = grep { ($_->{script} // '') eq $script } @{ $st->{pools} // [] };
    return $pool;
}

# The status, type, Location and normalised body of $got (who: $side) and
# $ref (its peer, $peer: php-fpm unless named), as four assertions named
# after $what; where the bodies part, their first differing line is shown
# (t_debug).
sub same_answer {
    my ($what, $side, $got, $ref, $peer) = @_;
    $peer //= 'php-fpm';
    ok t_cmp($got->{code}, $ref->{code} || "an answer from $peer", "$what: the same status ($ref->{code})");
    ok t_cmp($got->{type}, $ref->{type}, "$what: the same Content-Type");
    ok t_cmp($got->{loc}, $ref->{loc}, "$what: the same Location");
    my $same = $got->{nbody} eq $ref->{nbody};
    unless ($same) {
        my @a = split /\n/, $got->{nbody}, -1;
        my @b = split /\n/, $ref->{nbody}, -1;
        my $i = 0;
        $i++ while $i < @a && $i < @b && $a[$i] eq $b[$i];
        my $j = 0;
        $j++ while $j < length($a[$i] // '') && substr($a[$i], $j, 1) eq substr($b[$i] // '', $j, 1);
        $j = $j > 100 ? $j - 100 : 0;
        t_debug("line $i differs: $side '" . substr($a[$i] // '(none)', $j, 300)
                . "', $peer '" . substr($b[$i] // '(none)', $j, 300) . "'");
    }
    ok t_cmp($same ? 'same' : 'different', 'same', "$what: the same body (" . length($ref->{body}) . ' bytes)');
}

# For each [side, peer] of @$pairs, one walk step's answers ($r->{side})
# compared: same_answer's four assertions and one on the other headers,
# as $heads->(\%headers) normalises them; a step whose status or body
# parts is named in @$diff (for t_debug).
sub same_pairs {
    my ($pairs, $what, $r, $heads, $diff) = @_;
    for my $pair (@$pairs) {
        my ($me, $peer) = @$pair;
        same_answer("$me: $what", $me, $r->{$me}, $r->{$peer}, $peer eq 'fcgid' ? 'mod_fcgid' : 'php-fpm');
        ok t_cmp($heads->($r->{$me}{h}), $heads->($r->{$peer}{h}), "$me: $what: the same other headers");
        push @$diff, "$me: $what"
            if $r->{$me}{code} ne $r->{$peer}{code} || $r->{$me}{nbody} ne $r->{$peer}{nbody};
    }
}

# One assertion: the engine pool whose settings carry POOL_$tag
# (CGIplusSetEnv), on the status page of the server on $port, started one
# process and served at least $n requests.
sub engine_served_all {
    my ($port, $tag, $n, $what) = @_;
    my $st = eval { JSON::PP::decode_json((curl("http://127.0.0.1:$port/cgiplus-status?json"))[2]) } // {};
    my ($pool) = grep { grep { $_ eq "POOL_$tag" } @{ $_->{settings}{env} // [] } } @{ $st->{pools} // [] };
    ok t_cmp($pool ? "$pool->{counters}{spawns} spawn, "
                     . ($pool->{counters}{served} >= $n ? 'all' : $pool->{counters}{served}) . ' served'
                   : 'no pool', '1 spawn, all served', $what);
}

# One assertion: the php-cgi pool on the status page at $url started at
# most its 2 workers and served at least $n requests.
sub php_pool_served_all {
    my ($url, $n) = @_;
    my $pool = pool_of($url, '/usr/bin/php-cgi');
    my $spawns = $pool ? $pool->{counters}{spawns} : -1;
    ok t_cmp($pool ? ($spawns >= 1 && $spawns <= 2 ? 'at most 2' : $spawns) . ' spawns, served '
                     . ($pool->{counters}{served} >= $n ? 'all' : $pool->{counters}{served})
                   : 'no pool', 'at most 2 spawns, served all',
             'one pool of persistent php-cgi workers (started at most twice, its 2 workers) served the whole walk');
}

# The php-cgi pool of the virtual host on $port, on the status page at
# $url (JSON), and its workers' pids in order; (undef) without one.
sub php_workers {
    my ($url, $port) = @_;
    my $st = eval { JSON::PP::decode_json((curl("$url?json"))[2]) } // {};
    my ($p) = grep { ($_->{script} // '') eq '/usr/bin/php-cgi' && ($_->{site} // '') =~ /:$port\b/ }
              @{ $st->{pools} // [] };
    return ($p, sort { $a <=> $b } map { $_->{pid} } ($p ? @{ $p->{workers} // [] } : ()));
}

# A walk through an application on every side of %$port (name => port),
# each with a cookie jar in $dir: each step (a sub given what that side
# answered last, not a HEAD nor a redirect, and the side's name, returning
# [METHOD, path, curl arguments], the first argument 'no-jar' for a
# request without the jar) is run on each side, its answers ({code, type,
# loc, body, nbody, etag, h: the headers as curl() gives them}; loc and
# nbody through $norm->(text, port)) handed to $compare->("METHOD path",
# \%answers). Returns the last answers.
sub walk {
    my ($steps, $port, $dir, $norm, $compare) = @_;
    my %last = map { ($_ => { body => '' }) } keys %$port;
    for my $step (@$steps) {
        my (%r, $what);
        for my $who (sort keys %$port) {
            my $p = $port->{$who};
            my ($method, $path, @args) = @{ $step->($last{$who}, $who) };
            my @m = $method eq 'HEAD' ? ('-I') : ();
            # 'no-jar' first: a client without the side's cookies (an
            # API's, with its own credentials)
            my @jar = ('-c', "$dir/jar-$who", '-b', "$dir/jar-$who");
            @jar = () if @args && $args[0] eq 'no-jar' && shift @args;
            my ($code, $h, $body) = curl(@m, @jar, @args, "http://127.0.0.1:$p$path");
            $what = "$method $path";
            $r{$who} = { code => $code, type => $h->{'content-type'} // '',
                         loc => $norm->($h->{location} // '', $p), body => $body,
                         nbody => $norm->($body, $p), etag => $h->{etag} // '', h => $h };
            $last{$who} = $r{$who} unless $method eq 'HEAD' || $code >= 300 && $code < 400;
        }
        $compare->($what, \%r);
    }
    return \%last;
}

1;
