#!/usr/bin/perl
# Docs stay in step with the code: every directive in the module (and in
# the settings table, include/cgp_settings.def) is in the README's directive table, and every numbered log id used anywhere is
# documented in docs/errors.md (each table in numeric order), and every id
# documented is written somewhere or marked "No longer written";
# debian/cgiplus.conf's commented defaults are the README's; each log id is
# written at one call site only (httpd's rule for its AH numbers), except the
# ids docs/log-ids-intended lists with its reason; a C call site of one
# fixed level logs at the level its row gives. TAP output.
use strict;
use warnings;
use File::Basename qw(dirname);
use File::Find;

my $top = dirname(dirname(dirname(__FILE__)));
$top = $ENV{srcdir} if $ENV{srcdir};

sub slurp { my $f = shift; open my $fh, '<', $f or die "$f: $!\n"; local $/; <$fh> }

my (%directives, %ids, %sites);
find(sub {
    # sources, and the launchers' and engines' templates (lib/*/cgiplus-*.in;
    # the files made from them are not scanned again)
    return unless /\.(c|h|py|pm|sh)$/ || /^cgiplus-[\w-]+\.in$/;
    my $src = slurp($_);
    # call sites: the C macro, the Python and Perl libraries' _log(ID, ...),
    # _fail(ID, ...) and logmsg(ID, ...), and the sh library's _cgiplus_log ID
    my $line = 0;
    for (split /\n/, $src) {
        $line++;
        push @{ $sites{$+} }, "$File::Find::name:$line"
            while /CGIPLUS_LOGNO\((\d{4})\)|\b(?:_log|_fail|logmsg)\((\d{4})\s*,|\b_cgiplus_log\s+(\d{4})\b/g;
    }
    $ids{$_} //= $File::Find::name for keys %sites;
    $directives{$1}++ while $File::Find::dir =~ m{mod_cgiplus$} && $src =~ /AP_INIT_\w+\(\s*"(CGIplus\w+)"/g;
    $ids{$1} = $File::Find::name while $src =~ /CGIPLUS_LOGNO\((\d{4})\)/g;
    $ids{$1} = $File::Find::name while $src =~ /\bCGIPLUS(\d{4})\b/g;
}, map { "$top/$_" } grep { -d "$top/$_" } qw(mod_cgiplus runner lib common));

# ... mod_fcgid's, under their current names (cgiplus_fcgid.h) ...
my $fcgid = slurp("$top/mod_cgiplus/cgiplus_fcgid.h");
$directives{$1}++ while $fcgid =~ /"(Fcgid\w+)"/g;

# ... and those of the settings table, whose rows make their entries.
my $table = slurp("$top/include/cgp_settings.def");
$directives{$1}++ while $table =~ /^CGP_SETTING\(\w+,\s*(?:NULL|"\w+"),\s*"(CGIplus\w+)"/mg;

my $readme = slurp("$top/README.md");
my $docs = slurp("$top/docs/errors.md");

my @checks;
push @checks, [ "directive $_ is in README's directive table",
                $readme =~ /^\|\s*`\Q$_\E\b/m || $readme =~ /^\|[^|\n]*`\Q$_\E`/m ] for sort keys %directives;
push @checks, [ "log id $_ (used in $ids{$_}) is documented",
                $docs =~ /^\|\s*(?:CGIPLUS)?\Q$_\E\s*\|/m ] for sort keys %ids;
push @checks, [ 'found the directive table in the code', scalar(keys %directives) > 0 ];
# ... and the other way: an id documented is written somewhere, or its row
# says it no longer is.
while ($docs =~ /^\|\s*(?:CGIPLUS)?(\d{4})\s*\|([^\n]*)/mg) {
    my ($id, $row) = ($1, $2);
    push @checks, [ "documented log id $id is written in the code, or says 'No longer written'",
                    $ids{$id} || $row =~ /No longer written/ ];
}

# debian/cgiplus.conf's commented defaults are the README's: each names a
# directive of the table, and where the table's default is one plain value
# (`4`, `5m`, `1s 60s`) the comment says that value.
my %default;
while ($readme =~ /^\|\s*`(CGIplus\w+)[^`]*`\s*\|[^|]*\|\s*([^|]*?)\s*\|/mg) {
    my ($d, $cell) = ($1, $2);
    $default{$d} = $cell =~ /^`([^`]+)`(?:\s*\(.*\))?$/ ? $1 : '';
}
my $debconf = slurp("$top/debian/cgiplus.conf");
my $ndeb = 0;
while ($debconf =~ /^\s*#(CGIplus\w+)\s+(.+?)\s*$/mg) {
    my ($d, $v) = ($1, $2);
    $ndeb++;
    push @checks, [ "debian/cgiplus.conf: $d is in README's table", exists $default{$d} ];
    push @checks, [ "debian/cgiplus.conf: #$d $v is README's default (`$default{$d}`)", $v eq $default{$d} ]
        if exists $default{$d} && $default{$d} ne '';
}
push @checks, [ 'found commented defaults in debian/cgiplus.conf', $ndeb > 10 ];
# Defaults that follow httpd's Timeout are Debian's there (Timeout 300 in
# its apache2.conf): uncommenting the line must not change what runs.
push @checks, [ 'debian/cgiplus.conf: #CGIplusTimeoutNoProgress is 1 s less than Debian\'s Timeout 300',
                $debconf =~ /^\s*#CGIplusTimeoutNoProgress 299s\s*$/m ];
push @checks, [ 'found numbered log ids in the code', scalar(keys %ids) > 0 ];
# One call site per id, but for those listed as intended (`ID reason`).
my %intended = map { /^(\d{4})\s+\S/ ? ($1 => 1) : () } split /\n/, slurp("$top/docs/log-ids-intended");
for my $id (sort keys %sites) {
    my @at = map { s{^\Q$top\E/}{}r } @{ $sites{$id} };
    push @checks, [ "log id $id at one call site" . (@at > 1 ? ", or listed as intended (@at)" : ''),
                    @at == 1 || $intended{$id} ];
}
push @checks, [ "docs/log-ids-intended lists ids used at more than one site ($_)",
                @{ $sites{$_} // [] } > 1 ] for sort keys %intended;
# The level a C call site writes is the one its row gives (a site whose
# level is a variable or a choice is not checked here).
my %level;
$level{$1} = lc $2 while $docs =~ /^\|\s*(?:CGIPLUS)?(\d{4})\s*\|\s*([^|]*?)\s*\|/mg;
my @wrong_level;
find(sub {
    return unless /\.c$/;
    my $src = slurp($_);
    while ($src =~ /\b(?:ap_log_\w+|runner_log)\s*\(([^;]*?)CGIPLUS_LOGNO\((\d{4})\)/sg) {
        my ($args, $id) = ($1, $2);
        my %lvs = map { $_ => 1 } $args =~ /\b(?:APLOG|RUNNER_LOG)_(?!MARK\b|STARTUP\b)([A-Z]+\d?)\b/g;
        next unless keys %lvs == 1; # a level chosen at run time: its row's text says when
        my ($lv) = keys %lvs;
        $lv = { err => 'error', warning => 'warn' }->{lc $lv} // lc $lv;
        push @wrong_level, "$id: $lv in $File::Find::name, not '" . ($level{$id} // '?') . "'"
            unless ($level{$id} // '') =~ /\b\Q$lv\E\b/;
    }
}, map { "$top/$_" } grep { -d "$top/$_" } qw(mod_cgiplus runner common));
push @checks, [ 'each C call site logs at its documented level' .
                (@wrong_level ? " (@wrong_level)" : ''), !@wrong_level ];

# docs/errors.md: within each table the rows go up by id.
my @disorder;
for my $table (split /\n(?!\|)/, $docs) {
    my @rows = $table =~ /^\|\s*(?:CGIPLUS)?(\d{4})\s*\|/mg;
    push @disorder, map { "$rows[$_ - 1] before $rows[$_]" } grep { $rows[$_] <= $rows[$_ - 1] } 1 .. $#rows;
}
push @checks, [ 'docs/errors.md rows in numeric order' . (@disorder ? " (@disorder)" : ''), !@disorder ];

# Configuration snippets an admin copies (```apache blocks of README.md and
# docs/*.md) must parse: httpd takes a comment only as a line of its own, so
# `CGIplusMode cgi   # note` is "takes one argument" at startup.
my @trailing;
for my $f ('README.md', map { "docs/$_" } grep { /\.md$/ } do { opendir my $d, "$top/docs" or die; readdir $d }) {
    my ($in, $ln) = (0, 0);
    for (split /\n/, slurp("$top/$f")) {
        $ln++;
        if (/^\s*```\s*(\S*)/) { $in = $in ? 0 : ($1 eq 'apache' ? 1 : -1); next }
        push @trailing, "$f:$ln" if $in == 1 && /^\s*[^#\s][^#]*\s#/;
    }
}
push @checks, [ 'no comment after a directive in an apache snippet' . (@trailing ? " (@trailing)" : ''), !@trailing ];

# README's C example compiles as written (a C99 compiler refuses printf
# undeclared), against the tree's cgiplus.h.
if (my ($csrc) = slurp("$top/README.md") =~ /^```c\n(.*?)^```/ms) {
    my $cc = $ENV{CC} || 'cc';
    my $tmp = "/tmp/docs_check_$$.c";
    open my $fh, '>', $tmp or die "$tmp: $!\n";
    print $fh $csrc;
    close $fh;
    my $out = `$cc -std=c11 -Wall -Werror -fsyntax-only -I'$top/include' '$tmp' 2>&1`;
    my $ok = $? == 0;
    ($out) = grep { /error/ } split /\n/, $out;
    $out //= "";
    unlink $tmp;
    push @checks, [ "README's C example compiles" . ($ok ? '' : ": $out"), $ok ];
} else {
    push @checks, [ "README has a C example", 0 ];
}

print '1..', scalar(@checks), "\n";
my $n = 0;
my $fail = 0;
for my $c (@checks) {
    $n++;
    print(($c->[1] ? 'ok' : do { $fail++; 'not ok' }), " $n - $c->[0]\n");
}
exit($fail ? 1 : 0);
