#!/usr/bin/perl
# The man pages say what the docs say: mod_cgiplus(5) lists README's
# directive table row by row (directive, context, default, meaning), and
# cgiplus-runner(8) docs/RUNNER.md's option and key tables, in order. The
# pages are generated at build time (scripts/gen-man); this checks the
# built pages, so an edit to a table without a rebuild, or a generator that
# drops rows, fails. TAP output.
use strict;
use warnings;
use File::Basename qw(dirname);
use lib dirname(__FILE__);
use TapChecks qw(report slurp);

my $top = $ENV{srcdir} // dirname(dirname(dirname(__FILE__)));
my $build = '.';


# First cells of the table under a heading, and the last cell of each row.
sub md_rows {
    my ($text, $heading) = @_;
    $text =~ /^#+\s+\Q$heading\E\s*\n(.*?)(?=^#|\z)/ms or return;
    my @rows;
    for (split /\n/, $1) {
        next unless /^\|(.*)\|\s*$/;
        my @c = map { s/^\s+|\s+$//gr } split /(?<!\\)\|/, $1;
        push @rows, \@c unless $c[0] =~ /^-+$/;
    }
    shift @rows;
    return @rows;
}

# Markdown and roff reduced to the same plain words.
sub plain {
    my $s = shift;
    $s =~ s/\\f[BIR]//g;
    $s =~ s/\\-/-/g;
    $s =~ s/\\e/\\/g;
    $s =~ s/\\&//g;
    $s =~ s/\\\|/|/g;
    $s =~ s/\[([^\]]*)\]\([^)]*\)/$1/g;
    $s =~ s/[`*]//g;
    $s =~ s/\s+/ /g;
    return $s =~ s/^ | $//gr;
}

# .TP entries of a roff section: [tag, body].
sub man_entries {
    my ($page, $section) = @_;
    $page =~ /^\.S[HS] \Q$section\E\n(.*?)(?=^\.S[HS] |\z)/ms or return;
    my @e;
    for my $tp (split /^\.TP\n/m, $1) {
        my ($tag, @body) = split /\n/, $tp;
        next unless defined $tag && @body;
        push @e, [ plain($tag), plain(join ' ', grep { !/^\.br$/ } @body) ];
    }
    return @e;
}

my @checks;
sub check_table {
    my ($md, $heading, $page, $section, $what) = @_;
    my @rows = md_rows($md, $heading);
    my @ents = man_entries($page, $section);
    push @checks, [ "$what: the docs have the table", @rows > 0 ];
    push @checks, [ "$what: the man page lists the same entries in the same order",
                    join("\n", map { plain($_->[0]) } @rows) eq join("\n", map { $_->[0] } @ents) ];
    # A make variable in the docs ($(sbindir)) is its value in the page.
    my $cell_re = sub { join '\S+', map { quotemeta } split /\$\(\w+\)/, plain($_[0]), -1 };
    my @missing = grep {
        my $r = $_;
        my ($e) = grep { $_->[0] eq plain($r->[0]) } @ents;
        !$e || grep { my $re = $cell_re->($_); $e->[1] !~ /$re/ } @$r[1 .. $#$r];
    } @rows;
    push @checks, [ "$what: every cell of every row is in its entry"
                    . (@missing ? ' (differs: ' . join(', ', map { $_->[0] } @missing) . ')' : ''),
                    !@missing ];
}

my $readme = slurp("$top/README.md");
my $runner = slurp("$top/docs/RUNNER.md");
my $m5 = slurp("$build/man/mod_cgiplus.5");
my $m8 = slurp("$build/man/cgiplus-runner.8");
check_table($readme, 'Directives', $m5, 'DIRECTIVES', 'mod_cgiplus(5) directives');
check_table($runner, 'Command line', $m8, 'OPTIONS', 'cgiplus-runner(8) options');
check_table($runner, 'Runner-wide keys', $m8, 'Runner\-wide keys', 'cgiplus-runner(8) runner keys');
check_table($runner, 'Pool settings', $m8, 'Pool settings', 'cgiplus-runner(8) pool keys');

# The synopsis names every option of the table, none as required that
# the configuration file (socket) or systemd (a socket-activated
# listener) may give instead.
my ($syn) = $m8 =~ /^\.SH SYNOPSIS\n(.*?)^\.SH /ms;
$syn = plain($syn // '');
my @opts = map { plain($_->[0]) =~ /(--[a-z-]+)/g } md_rows($runner, 'Command line');
my @absent = grep { index($syn, $_) < 0 } @opts;
push @checks, [ 'cgiplus-runner(8) synopsis names every option' . (@absent ? " (not: @absent)" : ''),
                @opts > 5 && !@absent ];
push @checks, [ 'cgiplus-runner(8) synopsis: --socket is optional ([--socket PATH])',
                $syn =~ /\[--socket PATH\]/ ];

# The runner's own --help says the same.
my $help = `$build/runner/cgiplus-runner --help 2>&1`;
my @hgone = grep { index($help, $_) < 0 } @opts;
push @checks, [ 'cgiplus-runner --help names every option' . (@hgone ? " (not: @hgone)" : ''),
                @opts > 5 && !@hgone ];
push @checks, [ 'cgiplus-runner --help: --socket is optional ([--socket PATH])',
                $help =~ /\[--socket PATH\]/ ];
# ... and without any of the three, it says which it lacks.
my $bare = `env -u LISTEN_FDS -u LISTEN_PID $build/runner/cgiplus-runner 2>&1`;
push @checks, [ 'cgiplus-runner with no socket says so, and exits non-zero',
                $? != 0 && $bare =~ /^cgiplus-runner: no socket to listen on: give --socket PATH, a socket key in the --config file, or a systemd socket$/m ];

push @checks, [ "no make variable is left unexpanded in the pages (\$(sbindir))",
                "$m5$m8" !~ /\$\(\w+\)/ ];
report(@checks);
