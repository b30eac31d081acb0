# Every value of the static directives is checked at startup: httpd -t
# refuses a bad one with a sentence that names it.
use strict;
use warnings FATAL => 'all';
use Apache::Test;
use Apache::TestUtil;
use File::Temp qw(tempdir);

my $vars = Apache::Test::config()->{vars};
my $httpd = $vars->{httpd};
chomp(my $libexec = `$vars->{apxs} -q LIBEXECDIR`);
my $module = "$vars->{top_dir}/mod_cgiplus/.libs/mod_cgiplus.so";
my $static = "$vars->{documentroot}/static";
my $tmp = tempdir(CLEANUP => 1);

# httpd -t on a minimal configuration plus the given lines: (exit, output).
sub check {
    my @lines = @_;
    open my $fh, '>', "$tmp/httpd.conf" or die $!;
    print $fh <<"CONF";
ServerRoot "$tmp"
ServerName 127.0.0.1
Listen 127.0.0.1:1
PidFile "$tmp/httpd.pid"
ErrorLog "$tmp/error_log"
DefaultRuntimeDir "$tmp"
LoadModule mpm_event_module "$libexec/mod_mpm_event.so"
LoadModule cgiplus_module "$module"
CGIplusRunnerPath "$vars->{top_dir}/runner/cgiplus-runner"
CONF
    print $fh "$_\n" for @lines;
    close $fh;
    my $out = `'$httpd' -t -f '$tmp/httpd.conf' 2>&1`;
    return ($? >> 8, $out);
}

my @bad = (
    ["CGIplusStatic static $static",                qr/must start\s+with '\/'/],
    ["CGIplusStatic /a/../b/ $static",              qr/not\s+in normal form/],
    ["CGIplusStatic /s/ $static/no-such-dir",       qr/is not an existing directory/],
    ["CGIplusStatic /s/ /",                         qr/whole file system/],
    ["CGIplusStatic /s/",                           qr/takes a URL prefix and a directory/],
    ["CGIplusStatic /s/ $static phase=later",       qr/phase= takes 'quick'/],
    ["CGIplusStatic /s/ $static symlinks=maybe",    qr/symlinks= takes 'inside'/],
    ["CGIplusStatic /s/ $static dotfiles=yes",      qr/dotfiles= takes 'deny' or 'allow'/],
    ["CGIplusStatic /s/ $static precompressed=1",   qr/precompressed= takes 'on' or 'off'/],
    ["CGIplusStatic /s/ $static index=a/b",         qr/index= takes file names without '\/'/],
    ["CGIplusStatic /s/ $static index=.secret",     qr/index= takes file names without '\/'/],
    ["CGIplusStatic /s/ $static colour=blue",       qr/unknown option 'colour'/],
    ["CGIplusStatic /s/ $static nonsense",          qr/is not an option/],
    # the last one won without a word
    ["CGIplusStatic /s/ $static phase=quick PHASE=handler", qr/the option PHASE= is given twice/],
    ["CGIplusStatic /s/ $static index=a index=b",   qr/the option index= is given twice/],
    ["CGIplusStatic /s/ $static\nCGIplusStatic /s $static", qr/already mapped/],
    ["<Directory $static>\nCGIplusStatic /s/ $static\n</Directory>", qr/not allowed|cannot occur/],
    ["CGIplusOffloadRoot $static/no-such-dir",      qr/is not an existing directory/],
    ["CGIplusStaticCacheEntries -1",                qr/whole number from 0 to 1048576/],
    ["CGIplusStaticCacheEntries lots",              qr/whole number from 0 to 1048576/],
    ["CGIplusStaticCacheEntries 2000000",           qr/whole number from 0 to 1048576/],
    ["CGIplusStaticCacheBytes 12X",                 qr/size in bytes/],
    ["CGIplusStaticCacheBytes 2000G",               qr/size in bytes/],
    ["CGIplusStaticMaxMemFile -5",                  qr/size in bytes/],
    ["CGIplusStaticRevalidate 1.5",                 qr/whole number from 0 to 86400000/],
    ["CGIplusStaticCacheEviction random",           qr/takes 'clock' or 'lru'/],
    ["CGIplusStaticCacheBytes 1M\nCGIplusStaticMaxMemFile 2M", qr/CGIPLUS1500/],
    ["<VirtualHost *:1>\nCGIplusStaticRevalidate 5\n</VirtualHost>", qr/cannot occur within <VirtualHost>/],
);
my @good = (
    "CGIplusStatic / $static",
    "CGIplusStatic /s/ $static phase=handler index=index.html,default.htm "
        . "symlinks=none dotfiles=allow precompressed=off",
    "CGIplusStatic /s/ $static index=none symlinks=any",
    "CGIplusOffloadRoot $static $static/sub",
    "CGIplusStaticCacheEntries 0\nCGIplusStaticCacheBytes 64M\n"
        . "CGIplusStaticMaxMemFile 256k\nCGIplusStaticRevalidate 0\n"
        . "CGIplusStaticCacheEviction LRU",
);

plan tests => 2 * @bad + @good;

for my $t (@bad) {
    my ($line, $re) = @$t;
    my ($rc, $out) = check($line);
    (my $name = $line) =~ s/\n/; /g;
    ok t_cmp($rc != 0 ? 'refused' : 'accepted', 'refused', "refused: $name");
    ok t_cmp($out, $re, "says why: $name");
}
for my $line (@good) {
    my ($rc, $out) = check($line);
    (my $name = $line) =~ s/\n/; /g;
    ok t_cmp("$rc $out", qr/^0 Syntax OK/, "accepted: $name");
}
