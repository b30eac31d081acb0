# CGI.pm's settings that it sets once, as it loads, and not in
# CGI::initialize_globals ($CGI::POST_MAX, $CGI::DISABLE_UPLOADS,
# $CGI::ENCODE_ENTITIES, $CGI::LIST_CONTEXT_WARN and the like) are each
# CGI process's own: a script that turns uploads off and limits POSTs to
# 1 kB at run time (Debian's html2wml and UseModWiki do) does so for its
# own runs on the Perl engine, not for the next script of the engine, which
# takes an upload of 3 kB as under mod_cgid; a limit a script sets in a
# BEGIN block holds for each of its runs.
use strict;
use warnings FATAL => 'all';
use Apache::Test;
use Apache::TestUtil;
use lib 't/htdocs/apps';
use AppTest qw(curl url);

plan tests => 5;

my $vars = Apache::Test::config()->{vars};
my $file = "$vars->{t_logs}/cgipm_upload.txt";
open my $fh, '>', $file or die "$file: $!";
print $fh "x" x 3000;
close $fh;

sub answer {
    my ($path, @args) = @_;
    my ($code, $h, $body) = curl(@args, url($path));
    return "$code " . ($h->{'content-type'} // '-') . "\n$body";
}
my @upload = ('-F', "f=\@$file;type=text/plain");
my %want = map { ($_ => answer("/cgidperl/idioms/cgipm_$_.pl", @upload)) } qw(set plain begin);
ok t_cmp($want{plain}, "200 text/plain; charset=ISO-8859-1\nplain: file=cgipm_upload.txt size=3000 error=-"
         . " escaped=&lt;a href=&quot;x&quot;&gt;&amp;\nsettings: post_max=-1 disable_uploads=0 unlink=1"
         . " list_warn=1 delete=0 cookie_cache=0\n",
         'mod_cgid: CGI.pm as it loads takes the upload');
ok t_cmp($want{set}, qr/^set: file=- error=413 Request entity too large/m,
         'mod_cgid: the script limiting POSTs refuses it');
ok t_cmp($want{begin}, qr/^begin: post_max=100 error=413 Request entity too large/m,
         'mod_cgid: the BEGIN block limiting POSTs refuses it');
# set, plain, begin, plain, twice over, on the one engine
my @got = map { map { answer("/eperl/idioms/cgipm_$_.pl", @upload) } qw(set plain begin plain) } 1 .. 2;
ok t_cmp(join("--\n", @got[1, 3, 5, 7]), join("--\n", ($want{plain}) x 4),
         'engine: after either, the next script has CGI.pm as it loads (the upload taken), as under mod_cgid');
ok t_cmp(join("--\n", @got[0, 2, 4, 6]), join("--\n", @want{qw(set begin set begin)}),
         'engine: each limiting script refuses it, as under mod_cgid');
