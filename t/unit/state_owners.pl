#!/usr/bin/perl
# Each state machine has one owner (issue 21; docs/ARCHITECTURE.md): its
# state is assigned only in its step (or the few functions named), and
# nowhere else. Reads the sources (no build needed) and fails naming every
# assignment outside the owners. TAP output.
#
# A row per state: what it is, the directories whose .c and .h files are
# searched, a pattern for an assignment of it (for the runner's states the
# left side and what it is set to, so that two machines sharing a field
# name, a worker's and a request's ->state, are told apart), and the
# functions allowed to make one. Each owner must still make one. Every
# assignment of a field a row names in `field` must match one of the rows'
# patterns: a new way of setting a state is a failure until it is named here.
use strict;
use warnings;
use File::Basename qw(dirname);
use lib dirname(__FILE__);
use TapChecks qw(report slurp);

my $top = dirname(dirname(dirname(__FILE__)));
$top = $ENV{srcdir} if $ENV{srcdir};

# An assignment: field, '=', not '=='; atomics for the slot's word.
my $set = qr/(?<![=!<>])=(?!=)/;
my $word = qr/(?:atomic_(?:store|exchange|compare_exchange_\w+|fetch_\w+)(?:_explicit)?\s*\(\s*&.*?->word\b|->word\s*$set)/s;
my @rows = (
    # the module (mod_cgiplus/): a request's fields, each set only by the
    # room's functions (cgiplus_req.c)
    { what => "module request state (cgiplus_req.rstate, cgiplus_req_next)",
      dirs => [qw(mod_cgiplus)],
      pat => qr/\brstate\s*(?:[-+*\/|&]?=(?!=)|\+\+|--)|(?:\+\+|--)\s*[\w>.-]*\brstate\b/,
      owner => [qw(req_step)] },
    { what => "the count of unfit workers a request met (cgiplus_req.redos)",
      dirs => [qw(mod_cgiplus)],
      pat => qr/\bredos\s*(?:[-+]?=(?!=)|\+\+|--)|(?:\+\+|--)\s*[\w>.-]*\bredos\b/,
      owner => [qw(req_step)] },
    { what => "the kind of worker that has a request (cgiplus_req.xp, .xd)",
      dirs => [qw(mod_cgiplus)], pat => qr/->x[pd]\s*=(?!=)/,
      owner => [qw(cgiplus_req_attach cgiplus_req_detach)] },
    { what => "a request's end (cgiplus_req.ended, .end)",
      dirs => [qw(mod_cgiplus)], pat => qr/->(?:ended|end(?:\.\w+)?)\s*=(?!=)/,
      owner => [qw(cgiplus_req_end)] },
    { what => "a request's output count (cgiplus_req.out_total)",
      dirs => [qw(mod_cgiplus)], pat => qr/\bout_total\s*(?:[-+]?=(?!=)|\+\+)/,
      owner => [qw(cgiplus_req_out)] },
    { what => "why the module failed a request (cgiplus_req.fail_cause, .fail_reported)",
      dirs => [qw(mod_cgiplus)], pat => qr/\bfail_(?:cause|reported)\s*=(?!=)/,
      owner => [qw(cgiplus_req_failed cgiplus_req_report)] },
    # the runner (runner/): a request, a worker, a WebSocket worker and upgrade
    { what => "runner request state (runner_req.state, runner_rnext)",
      dirs => [qw(runner)], field => qr/->state\b/,
      pat => qr/->state\s*$set\s*(?:\(runner_rstate\)|RUNNER_R_)/, owner => [qw(req_step)] },
    { what => "runner worker state (runner_worker.state, runner_wnext)",
      dirs => [qw(runner)], field => qr/->state\b/,
      pat => qr/->state\s*$set\s*(?:\(runner_wstate\)|RUNNER_W_)/, owner => [qw(runner_worker_step)] },
    { what => "WebSocket worker state (runner_ws_worker.state, runner_ws_wnext)",
      dirs => [qw(runner)], field => qr/->state\b/,
      pat => qr/->state\s*$set\s*(?:\(runner_ws_wstate\)|RUNNER_WS_W_)/, owner => [qw(runner_ws_worker_step)] },
    { what => "WebSocket upgrade state (runner_ws_open.state, runner_ws_onext)",
      dirs => [qw(runner)], field => qr/->state\b/,
      pat => qr/->state\s*$set\s*(?:\(runner_ws_ostate\)|RUNNER_WS_O_)/, owner => [qw(runner_ws_open_step)] },
    { what => "a pool's Landlock domain thread (runner_domain.state)",
      dirs => [qw(runner)], field => qr/->state\b/,
      pat => qr/->state\s*$set\s*(?:ok\s*\?\s*)?RUNNER_D_/,
      owner => [qw(holder domain_new runner_domain_free)] },
    { what => "runner connection state (runner_client.state)",
      dirs => [qw(runner)], field => qr/->state\b/,
      pat => qr/->state\s*$set\s*RUNNER_C_/, owner => undef }, # not a table (yet): any function
    # the shared table's slot and waiter entry, runner and module: their
    # words are written the same way, so a write inside one machine's step
    # belongs to that machine (below), any other fails both
    { what => "slot state (cgp_tslot.word, cgp_tnext), runner and module",
      dirs => [qw(runner mod_cgiplus common include)], field => qr/->word\b/,
      pat => $word, owner => [qw(cgp_tslot_step)] },
    { what => "waiter entry state (cgp_twait.word, cgp_twnext), runner and module",
      dirs => [qw(runner mod_cgiplus common include)], field => qr/->word\b/,
      pat => $word, owner => [qw(cgp_tw_step)] },
);

# Fields of the same name that are no state machine's.
my @not_states = (
    [ qr{^runner/runner_status\.c$}, qr/\bo->state\b/, "the status snapshot's label of a worker" ],
);

# The functions of a C file with their bodies' lines: [name, first line, text].
sub functions {
    my ($src) = @_;
    $src =~ s{/\*.*?\*/}{ my $c = $&; $c =~ tr/\n//cd; $c }gse; # comments out, lines kept
    $src =~ s{"(?:\\.|[^"\\])*"}{""}g;
    $src =~ s{//[^\n]*}{}g;
    my (@f, $cand, $cur);
    my ($depth, $line) = (0, 0);
    for my $l (split /\n/, $src) {
        $line++;
        if ($depth == 0 && $l =~ /^[A-Za-z_][\w\s\*]*?\b(\w+)\s*\(/ && $l !~ /;\s*$/) {
            $cand = [$1, $line];
        }
        elsif ($depth == 0 && $l =~ /;\s*$/) {
            undef $cand; # the end of a prototype that took several lines
        }
        my $opens = () = $l =~ /\{/g;
        my $closes = () = $l =~ /\}/g;
        if ($depth == 0 && $opens && $cand) {
            $cur = [$cand->[0], $cand->[1], ''];
            push @f, $cur;
        }
        $cur->[2] .= "$l\n" if $cur && $depth + $opens > 0;
        $depth += $opens - $closes;
        if ($depth <= 0) {
            $depth = 0;
            ($cur, $cand) = (undef, undef) if $closes;
        }
    }
    return @f;
}

my %files;
for my $r (@rows) {
    for my $d (@{ $r->{dirs} }) {
        $files{$_} = 1 for glob("$top/$d/*.c"), glob("$top/$d/*.h");
    }
}
my $owns = sub { my ($r, $fn) = @_; defined $r->{owner} && grep { $_ eq $fn } @{ $r->{owner} } };

my (@checks, %where, @unknown);
for my $file (sort keys %files) {
    (my $rel = $file) =~ s{^\Q$top\E/}{};
    for my $fn (functions(slurp($file))) {
        my ($name, $at, $body) = @$fn;
        for my $stmt (split /;/, $body) {
            my @hit = grep { my $r = $_; (grep { $rel =~ m{^\Q$_\E/} } @{ $r->{dirs} })
                             && $stmt =~ $r->{pat} } @rows;
            # inside a machine's own step, a write that another row's
            # identical pattern also matches is that machine's alone
            my %mine = map { ("$_->{pat}" => 1) } grep { $owns->($_, $name) } @hit;
            my @at = grep { $owns->($_, $name) || !$mine{"$_->{pat}"} } @hit;
            push @{ $where{$_->{what}} }, "$rel:$name" for @at;
            # any other assignment of a field a row names
            if (!@at && !grep { $rel =~ $_->[0] && $stmt =~ $_->[1] } @not_states) {
                for my $r (grep { $_->{field} } @rows) {
                    next unless grep { $rel =~ m{^\Q$_\E/} } @{ $r->{dirs} };
                    if ($stmt =~ /$r->{field}\s*$set/ ||
                        ($stmt =~ /atomic_(?!load)\w+\s*\(\s*&.*?$r->{field}/s)) {
                        push @unknown, "$rel:$name: " . ($stmt =~ s/\s+/ /gr);
                        last;
                    }
                }
            }
        }
    }
}

for my $r (grep { defined $_->{owner} } @rows) {
    my @sites = @{ $where{$r->{what}} || [] };
    my %fns = map { (split /:/)[1] => 1 } @sites;
    my $who = join(', ', @{ $r->{owner} });
    my @other = grep { !$owns->($r, (split /:/)[1]) } @sites;
    push @checks, [ "$r->{what}: assigned only in $who"
                    . (@other ? " (also in: @other)" : ''), @sites && !@other ];
    my @idle = grep { !$fns{$_} } @{ $r->{owner} };
    push @checks, [ "$r->{what}: " . (@idle ? "no assignment in @idle" : "each of $who assigns it"), !@idle ];
}
push @checks, [ 'every assignment of a state field is one the rows know'
                . (@unknown ? " (unknown: " . join('; ', @unknown) . ")" : ''), !@unknown ];

report(@checks);
